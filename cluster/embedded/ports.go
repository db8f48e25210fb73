package embedded

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// A killed node listens again on its own port (clients know the broker by
// it), so that port must stay free while the node is down. A port the
// kernel picks (a bind to port 0) lies in its ephemeral range, which every
// outgoing connection and every other bind to port 0 draws from too: with
// many clusters and clients on one machine (the unit pass runs packages and
// tests side by side) another cluster took a killed node's port in CI, and
// the node's restart failed ("address already in use"). So the cluster's
// ports come from below that range, each leased to it by a lock on a byte
// of a shared file, against every other embedded cluster of any process,
// until Stop.

// portsFloor is the lowest port leased: below it live well-known services.
const portsFloor = 20000

// portLease holds ports for one cluster; closing its file releases them
// (open-file-description locks: per open of the file, not per process, so
// two clusters of one process exclude each other too, and a crashed
// process's leases go with it).
type portLease struct {
	ports []int
	file  *os.File
}

// leasePorts leases n free ports below the kernel's ephemeral range.
func leasePorts(n int) (*portLease, error) {
	lo, hi := portsFloor, ephemeralLow()
	if hi-lo < 100*n {
		return nil, fmt.Errorf("embedded cluster: ports %d-%d below the ephemeral range leave too few to lease %d", lo, hi-1, n)
	}
	f, err := os.OpenFile(filepath.Join(os.TempDir(), "kafkachaos-embedded-ports.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("embedded cluster: leasing ports: %w", err)
	}
	l := &portLease{file: f}
	for tries := 0; len(l.ports) < n; tries++ {
		if tries == 1000 {
			l.release()
			return nil, fmt.Errorf("embedded cluster: no %d free ports in %d-%d after %d tries", n, lo, hi-1, tries)
		}
		// a lock this lease holds would be granted again: skip its own
		if p := lo + rand.N(hi-lo); !slices.Contains(l.ports, p) && l.take(p) {
			l.ports = append(l.ports, p)
		}
	}
	return l, nil
}

// take locks port p's byte and checks nobody listens there now; false if
// either fails.
func (l *portLease) take(p int) bool {
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: io.SeekStart, Start: int64(p), Len: 1}
	if unix.FcntlFlock(l.file.Fd(), unix.F_OFD_SETLK, &lk) != nil {
		return false // another cluster's
	}
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
	if err == nil {
		ln.Close()
		return true
	}
	lk.Type = unix.F_UNLCK
	unix.FcntlFlock(l.file.Fd(), unix.F_OFD_SETLK, &lk)
	return false
}

// release gives the ports back.
func (l *portLease) release() {
	if l != nil && l.file != nil {
		l.file.Close()
		l.file = nil
	}
}

// ephemeralLow is the bottom of the kernel's ephemeral port range (Linux's
// default 32768 when it cannot be read).
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 32768
	}
	n, err := strconv.Atoi(f[0])
	if err != nil || n <= 0 {
		return 32768
	}
	return n
}
