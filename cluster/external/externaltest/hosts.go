package externaltest

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

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/cluster/local"
)

// sshdPath is Debian's OpenSSH server (openssh-server).
const sshdPath = "/usr/sbin/sshd"

// Require fails when this machine cannot stand in for the
// user's hosts: the local provider's brokers in network namespaces (root,
// Java, nft) and an sshd in each. It never skips: the provider's claims
// rest on this test.
func Require(t testing.TB) {
	t.Helper()
	missing := local.Missing(true)
	if _, err := os.Stat(sshdPath); err != nil {
		missing = append(missing, sshdPath+" (apt-get install openssh-server)")
	}
	if len(missing) > 0 {
		t.Fatalf("the external provider's test over real SSH needs %s", strings.Join(missing, ", "))
	}
}

// RequireSSHD fails when this machine has no sshd to run as root.
func RequireSSHD(t testing.TB) {
	t.Helper()
	if _, err := os.Stat(sshdPath); err != nil {
		t.Fatalf("%s missing (apt-get install openssh-server): %v", sshdPath, err)
	}
	if os.Geteuid() != 0 {
		t.Fatal("sshd for the test's hosts needs root")
	}
}

// Hosts is a local cluster whose brokers' namespaces each run an sshd,
// described by an inventory: a cluster of "hosts" reachable over SSH.
type Hosts struct {
	Local     *local.Provider
	Inventory string           // the inventory file's path
	NS        map[int32]string // each node's namespace
}

// Start starts a three-broker local cluster and an sshd in each broker's
// namespace, and writes the inventory of the result; the test's cleanup
// stops them.
func Start(ctx context.Context, t testing.TB) *Hosts {
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
	hostKey, authorized := writeKeys(t, dir)
	java, err := exec.LookPath("java")
	if err != nil {
		t.Fatal(err)
	}
	f := &Hosts{Local: lp, Inventory: filepath.Join(dir, "inventory.yaml"), NS: map[int32]string{}}
	var known, hosts, bootstrap []string
	for _, n := range lp.Nodes() {
		ns, argv, err := lp.NodeProcess(n.ID)
		if err != nil {
			t.Fatal(err)
		}
		ip, _, _ := net.SplitHostPort(n.Addr)
		f.NS[n.ID] = ns
		startSSHD(t, dir, ns, ip, 22, authorized)
		known = append(known, knownhosts.Line([]string{knownhosts.Normalize(ip)}, hostKey))
		bootstrap = append(bootstrap, n.Addr)
		argv[0] = java
		hosts = append(hosts, hostEntry(n.ID, ip, n.Addr, lp.RunID(), argv))
	}
	if err := os.WriteFile(filepath.Join(dir, "known_hosts"), []byte(strings.Join(known, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	inv := fmt.Sprintf("harm: allowed\nbootstrap: [%s]\nknown-hosts: known_hosts\nhosts:\n%s", strings.Join(bootstrap, ", "), strings.Join(hosts, ""))
	if err := os.WriteFile(f.Inventory, []byte(inv), 0o600); err != nil {
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
func writeKey(t testing.TB, path string) ssh.PublicKey {
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

// writeKeys writes the client's key (id_ed25519), the hosts' key and the
// authorized_keys file holding the client's into dir, and returns the
// hosts' public key and the authorized_keys path.
func writeKeys(t testing.TB, dir string) (ssh.PublicKey, string) {
	t.Helper()
	clientKey := writeKey(t, filepath.Join(dir, "id_ed25519"))
	hostKey := writeKey(t, filepath.Join(dir, "host_ed25519"))
	authorized := filepath.Join(dir, "authorized_keys")
	if err := os.WriteFile(authorized, ssh.MarshalAuthorizedKey(clientKey), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil { // sshd's privilege separation directory
		t.Fatal(err)
	}
	return hostKey, authorized
}

// LoopbackSSHDs starts n sshds on 127.0.0.1, each on a port of its own,
// until the test ends: hosts without Kafka, for tests of the SSH layer
// alone. dir holds the client's key (id_ed25519) and known_hosts.
func LoopbackSSHDs(t testing.TB, n int) (dir string, addrs []string) {
	t.Helper()
	dir = t.TempDir()
	hostKey, authorized := writeKeys(t, dir)
	var known []string
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		startSSHD(t, dir, "", "127.0.0.1", port, authorized)
		addr := net.JoinHostPort("127.0.0.1", fmt.Sprint(port))
		addrs = append(addrs, addr)
		known = append(known, knownhosts.Line([]string{knownhosts.Normalize(addr)}, hostKey))
	}
	if err := os.WriteFile(filepath.Join(dir, "known_hosts"), []byte(strings.Join(known, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir, addrs
}

// startSSHD runs an sshd on ip:port until the test ends, in namespace ns
// unless it is "".
func startSSHD(t testing.TB, dir, ns, ip string, port int, authorized string) {
	t.Helper()
	name := fmt.Sprintf("sshd_%s_%d", ip, port)
	cfg := filepath.Join(dir, name+".conf")
	conf := fmt.Sprintf("Port %d\nListenAddress %s\nHostKey %s\nAuthorizedKeysFile %s\nPidFile %s\n"+
		"PermitRootLogin prohibit-password\nStrictModes no\nUsePAM no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n",
		port, ip, filepath.Join(dir, "host_ed25519"), authorized, filepath.Join(dir, name+".pid"))
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	log, err := os.Create(filepath.Join(dir, name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(sshdPath, "-D", "-e", "-f", cfg)
	if ns != "" {
		cmd = exec.Command("ip", "netns", "exec", ns, sshdPath, "-D", "-e", "-f", cfg)
	}
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
		c, err := net.DialTimeout("tcp", net.JoinHostPort(ip, fmt.Sprint(port)), time.Second)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			out, _ := os.ReadFile(log.Name())
			t.Fatalf("sshd (namespace %q) not listening on %s:%d: %v\n%s", ns, ip, port, err, out)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// quote makes s one shell word.
func quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// JVMState is the state of the main thread of node id's JVM ("R
// (running)", "T (stopped)", ...), read in /proc on this machine, or "no
// process".
func (f *Hosts) JVMState(id int32) string {
	out, err := exec.Command("pgrep", "-f", "--", fmt.Sprintf("-Dkafkachaos[.]run=%s -Dkafkachaos[.]node=%d ", f.Local.RunID(), id)).Output()
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
