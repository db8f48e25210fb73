package external

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/cluster/local"
)

// sshdPath is Debian's OpenSSH server (openssh-server).
const sshdPath = "/usr/sbin/sshd"

// requireRealHosts fails when this machine cannot stand in for the
// user's hosts: the local provider's brokers in network namespaces (root,
// Java, nft) and an sshd in each. It never skips: the provider's claims
// rest on this test.
func requireRealHosts(t *testing.T) {
	t.Helper()
	missing := local.Missing(true)
	if _, err := os.Stat(sshdPath); err != nil {
		missing = append(missing, sshdPath+" (apt-get install openssh-server)")
	}
	if len(missing) > 0 {
		t.Fatalf("the external provider's test over real SSH needs %s", strings.Join(missing, ", "))
	}
}

// fakeHosts is a local cluster whose brokers' namespaces each run an sshd,
// described by an inventory: a cluster of "hosts" reachable only over SSH.
type fakeHosts struct {
	local     *local.Provider
	inventory string
	ns        map[int32]string // each node's namespace
	ips       map[int32]string
}

// startFakeHosts starts a three-broker local cluster and an sshd in each
// broker's namespace, and writes the inventory of the result.
func startFakeHosts(t *testing.T, ctx context.Context) *fakeHosts {
	t.Helper()
	lp := local.New(local.Options{Logf: t.Logf})
	t.Cleanup(func() {
		if err := lp.Stop(context.Background()); err != nil {
			t.Errorf("local Stop: %v", err)
		}
	})
	if err := lp.Start(ctx, cluster.Spec{RunID: "external-ssh"}); err != nil {
		t.Fatalf("local Start: %v", err)
	}
	dir := t.TempDir()
	clientKey := writeKey(t, filepath.Join(dir, "id_ed25519"))
	hostKey := writeKey(t, filepath.Join(dir, "host_ed25519"))
	authorized := filepath.Join(dir, "authorized_keys")
	if err := os.WriteFile(authorized, ssh.MarshalAuthorizedKey(clientKey), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		t.Fatal(err)
	}
	java, err := exec.LookPath("java")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeHosts{local: lp, inventory: filepath.Join(dir, "inventory.yaml"), ns: map[int32]string{}, ips: map[int32]string{}}
	var known, hosts, bootstrap []string
	for _, n := range lp.Nodes() {
		ns, argv, err := lp.NodeProcess(n.ID)
		if err != nil {
			t.Fatal(err)
		}
		ip, _, _ := net.SplitHostPort(n.Addr)
		f.ns[n.ID], f.ips[n.ID] = ns, ip
		startSSHD(t, dir, ns, ip, hostKey, authorized)
		known = append(known, knownhosts.Line([]string{knownhosts.Normalize(ip)}, hostKey))
		bootstrap = append(bootstrap, n.Addr)
		argv[0] = java
		hosts = append(hosts, hostEntry(n.ID, ip, n.Addr, lp.RunID(), argv))
	}
	if err := os.WriteFile(filepath.Join(dir, "known_hosts"), []byte(strings.Join(known, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	inv := fmt.Sprintf("harm: allowed\nbootstrap: [%s]\nknown-hosts: known_hosts\nhosts:\n%s", strings.Join(bootstrap, ", "), strings.Join(hosts, ""))
	if err := os.WriteFile(f.inventory, []byte(inv), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

// hostEntry is node id's inventory entry: its JVM found by the run and
// node markers of its command line, started again by that command line.
func hostEntry(id int32, ip, broker, run string, argv []string) string {
	var logDir string
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = quote(a)
		if d, ok := strings.CutPrefix(a, "-Dkafka.logs.dir="); ok {
			logDir = d
		}
	}
	// [.] keeps the pattern from matching the shells that carry it
	find := fmt.Sprintf("pgrep -f -- '-Dkafkachaos[.]run=%s -Dkafkachaos[.]node=%d '", run, id)
	start := fmt.Sprintf("setsid nohup %s >>%s 2>&1 </dev/null &", strings.Join(quoted, " "), quote(logDir+"/ssh-start.log"))
	return fmt.Sprintf("  - address: %s\n    user: root\n    key: id_ed25519\n    node-id: %d\n    broker: %s\n    find: %s\n    start: %s\n    log-dir: %s\n",
		ip, id, broker, yamlString(find), yamlString(start), yamlString(logDir))
}

// yamlString is s as a YAML double-quoted scalar.
func yamlString(s string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`
}

// writeKey writes a new ed25519 private key in OpenSSH form to path and
// returns its public half.
func writeKey(t *testing.T, path string) ssh.PublicKey {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	sp, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// startSSHD runs an sshd in namespace ns on ip:22 until the test ends.
func startSSHD(t *testing.T, dir, ns, ip string, _ ssh.PublicKey, authorized string) {
	t.Helper()
	cfg := filepath.Join(dir, "sshd_"+ns+".conf")
	conf := fmt.Sprintf("Port 22\nListenAddress %s\nHostKey %s\nAuthorizedKeysFile %s\nPidFile %s\n"+
		"PermitRootLogin prohibit-password\nStrictModes no\nUsePAM no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n",
		ip, filepath.Join(dir, "host_ed25519"), authorized, filepath.Join(dir, "sshd_"+ns+".pid"))
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	log, err := os.Create(filepath.Join(dir, "sshd_"+ns+".log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("ip", "netns", "exec", ns, sshdPath, "-D", "-e", "-f", cfg)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		log.Close()
	})
	for deadline := time.Now().Add(10 * time.Second); ; {
		c, err := net.DialTimeout("tcp", net.JoinHostPort(ip, "22"), time.Second)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			out, _ := os.ReadFile(log.Name())
			t.Fatalf("sshd in %s not listening on %s:22: %v\n%s", ns, ip, err, out)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// answers reports whether the broker at addr answers a metadata request
// sent to it alone within a few seconds.
func answers(addr string) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.RetryTimeout(time.Second))
	if err != nil {
		return err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	req := kmsg.NewPtrMetadataRequest()
	req.Topics = []kmsg.MetadataRequestTopic{}
	_, err = req.RequestWith(ctx, cl)
	return err
}

// tablesIn lists the nft tables of namespace ns, read on this machine, not
// over SSH.
func tablesIn(t *testing.T, ns string) string {
	t.Helper()
	out, err := exec.Command("ip", "netns", "exec", ns, "nft", "list", "tables").CombinedOutput()
	if err != nil {
		t.Fatalf("nft list tables in %s: %v: %s", ns, err, out)
	}
	return string(out)
}

// reaches reports whether namespace ns can open a TCP connection to addr.
func reaches(ns, addr string) bool {
	host, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command("ip", "netns", "exec", ns, "timeout", "3", "bash", "-c", fmt.Sprintf("exec 3<>/dev/tcp/%s/%s", host, port))
	return cmd.Run() == nil
}

// threadState is the state of the first thread of the JVM of node id in
// fake hosts f, read in /proc on this machine.
func (f *fakeHosts) jvmState(t *testing.T, id int32) string {
	t.Helper()
	out, err := exec.Command("pgrep", "-f", "--", fmt.Sprintf("-Dkafkachaos[.]run=%s -Dkafkachaos[.]node=%d ", f.local.RunID(), id)).Output()
	if err != nil {
		return "no process"
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%s/status", strings.TrimSpace(string(out))))
	if err != nil {
		return "no process"
	}
	for _, l := range strings.Split(string(status), "\n") {
		if s, ok := strings.CutPrefix(l, "State:"); ok {
			return strings.TrimSpace(s)
		}
	}
	return ""
}

// TestExternalFaultsOverSSH drives a real cluster only through SSH, as the
// external provider drives a user's: each fault's effect is then checked
// from outside it (the broker's answers, /proc and nft on this machine).
func TestExternalFaultsOverSSH(t *testing.T) {
	requireRealHosts(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	f := startFakeHosts(t, ctx)
	p, err := Open(f.inventory, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(ctx, cluster.Spec{RunID: "external-faults", Topics: []cluster.TopicSpec{{Name: "ext", Partitions: 3, MinInsyncReplicas: 2}}}); err != nil {
		t.Fatalf("external Start: %v", err)
	}
	t.Cleanup(func() {
		if err := p.Stop(context.Background()); err != nil {
			t.Errorf("external Stop: %v", err)
		}
	})
	for _, c := range []cluster.Capability{cluster.CapKill, cluster.CapPause, cluster.CapPartition} {
		if !cluster.Supports(p, c) {
			t.Fatalf("capabilities %v lack %s: the hosts have root and nft", p.Capabilities(), c)
		}
	}
	const victim = 2
	addr := p.Nodes()[1].Addr

	t.Run("kill and restart", func(t *testing.T) {
		if err := p.Kill(ctx, victim); err != nil {
			t.Fatal(err)
		}
		if err := answers(addr); err == nil {
			t.Fatal("killed broker still answers")
		}
		if s := f.jvmState(t, victim); s != "no process" && !strings.HasPrefix(s, "Z") {
			t.Fatalf("killed broker's JVM is %s", s)
		}
		if err := p.Restart(ctx, victim); err != nil {
			t.Fatal(err)
		}
		if err := answers(addr); err != nil {
			t.Fatalf("restarted broker does not answer: %v", err)
		}
	})
	t.Run("pause and resume", func(t *testing.T) {
		if err := p.Pause(ctx, victim); err != nil {
			t.Fatal(err)
		}
		if s := f.jvmState(t, victim); !strings.HasPrefix(s, "T") {
			t.Fatalf("paused broker's JVM is %s, want T (stopped)", s)
		}
		if err := answers(addr); err == nil {
			t.Fatal("paused broker answers")
		}
		if err := p.Resume(ctx, victim); err != nil {
			t.Fatal(err)
		}
		if err := answers(addr); err != nil {
			t.Fatalf("resumed broker does not answer: %v", err)
		}
	})
	t.Run("partition and heal", func(t *testing.T) {
		table := "table inet " + TableName(p.RunID())
		peer := p.Nodes()[0].Addr
		if !reaches(f.ns[victim], peer) {
			t.Fatalf("node %d cannot reach %s before the partition", victim, peer)
		}
		if err := p.Partition(ctx, [][]int32{{victim}, {1, 3}}); err != nil {
			t.Fatal(err)
		}
		for id, ns := range f.ns {
			if !strings.Contains(tablesIn(t, ns), table) {
				t.Fatalf("node %d's host has no %s after the partition", id, table)
			}
		}
		if reaches(f.ns[victim], peer) {
			t.Fatalf("node %d still reaches %s across the partition", victim, peer)
		}
		if err := p.Heal(ctx); err != nil {
			t.Fatal(err)
		}
		for id, ns := range f.ns {
			if strings.Contains(tablesIn(t, ns), table) {
				t.Fatalf("node %d's host still has %s after the heal", id, table)
			}
		}
		if !reaches(f.ns[victim], peer) {
			t.Fatalf("node %d cannot reach %s after the heal", victim, peer)
		}
	})
	t.Run("clean after a crashed harness", func(t *testing.T) {
		crashed, err := Open(f.inventory, t.Logf)
		if err != nil {
			t.Fatal(err)
		}
		if err := crashed.Start(ctx, cluster.Spec{RunID: "external-crashed"}); err != nil {
			t.Fatal(err)
		}
		if err := crashed.CutLinks(ctx, [][2]int32{{1, victim}}); err != nil {
			t.Fatal(err)
		}
		if err := crashed.Pause(ctx, 3); err != nil {
			t.Fatal(err)
		}
		table := "table inet " + TableName(crashed.RunID())
		// the harness is gone: its connections close, its provider never stops
		for _, h := range crashed.all {
			h.conn.Close()
		}
		inv, err := Load(f.inventory)
		if err != nil {
			t.Fatal(err)
		}
		removed, err := Clean(ctx, inv, crashed.RunID())
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("clean removed %v", removed)
		if len(removed) != 3 {
			t.Errorf("clean removed %d leftovers, want 3 (two tables, one SIGSTOP): %v", len(removed), removed)
		}
		for id, ns := range f.ns {
			if strings.Contains(tablesIn(t, ns), table) {
				t.Errorf("node %d's host still has %s after clean", id, table)
			}
		}
		if s := f.jvmState(t, 3); strings.HasPrefix(s, "T") {
			t.Errorf("node 3's JVM is still %s after clean", s)
		}
		if again, err := Clean(ctx, inv, crashed.RunID()); err != nil || len(again) > 0 {
			t.Errorf("second clean removed %v (error %v), want nothing", again, err)
		}
		if err := answers(p.Nodes()[2].Addr); err != nil {
			t.Errorf("node 3 does not answer after clean: %v", err)
		}
	})
}
