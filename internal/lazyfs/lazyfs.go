package lazyfs

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// Options say what to mount where.
type Options struct {
	Backing    string // the directory mirrored; it must exist
	Mountpoint string // an empty directory; created when missing
	// Tag marks the mount (source "lazyfs-<Tag>") for Mounts: a run id.
	Tag string
	// Timeout bounds a mount and an unmount; 0 means 10 s.
	Timeout time.Duration
}

// FS is a mounted lazyfs.
type FS struct {
	opts  Options
	files files

	mu     sync.Mutex
	server *fuse.Server // nil once unmounted
	root   *node        // the served tree's

	writeErr, readErr atomic.Int64 // the errno injected faults answer, or 0
	failed            atomic.Int64 // operations failed by them
}

// SourcePrefix starts the source of every lazyfs mount in /proc/self/mountinfo.
const SourcePrefix = "lazyfs-"

// Available says why lazyfs cannot mount here, or nil: mounting needs
// root (go-fuse mounts directly) and /dev/fuse.
func Available() error {
	if os.Geteuid() != 0 {
		return errors.New("lazyfs: mounting needs root")
	}
	if _, err := os.Stat("/dev/fuse"); err != nil {
		return fmt.Errorf("lazyfs: %w", err)
	}
	return nil
}

// Mount mounts a lazyfs of opts.Backing on opts.Mountpoint.
func Mount(opts Options) (*FS, error) {
	if opts.Backing == "" || opts.Mountpoint == "" || opts.Tag == "" {
		return nil, fmt.Errorf("lazyfs: backing %q, mountpoint %q, tag %q: all three are needed", opts.Backing, opts.Mountpoint, opts.Tag)
	}
	if opts.Timeout == 0 {
		opts.Timeout = 10 * time.Second
	}
	if err := os.MkdirAll(opts.Mountpoint, 0o755); err != nil {
		return nil, fmt.Errorf("lazyfs: %w", err)
	}
	m := &FS{opts: opts, files: files{by: map[uint64]*file{}}}
	if err := m.mount(); err != nil {
		return nil, err
	}
	return m, nil
}

// mount serves a fresh tree (a cold kernel cache) on the mountpoint.
func (m *FS) mount() error {
	r, err := fs.NewLoopbackRoot(m.opts.Backing)
	if err != nil {
		return fmt.Errorf("lazyfs: backing %s: %w", m.opts.Backing, err)
	}
	root := &node{LoopbackNode: r.(*fs.LoopbackNode), m: m}
	root.RootData.RootNode = root
	opts := &fs.Options{MountOptions: fuse.MountOptions{
		// Strict: no fusermount fallback, whose device fd would be passed
		// to it and to every process started after (see closeFuseOnExec).
		DirectMountStrict: true, AllowOther: true, FsName: SourcePrefix + m.opts.Tag, Name: "lazyfs",
		MaxWrite: 1 << 20,
	}}
	type mounted struct {
		s   *fuse.Server
		err error
	}
	done := make(chan mounted, 1)
	go func() {
		s, err := fs.Mount(m.opts.Mountpoint, root, opts)
		done <- mounted{s, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			return fmt.Errorf("lazyfs: mounting %s: %w", m.opts.Mountpoint, r.err)
		}
		closeFuseOnExec()
		m.mu.Lock()
		m.server, m.root = r.s, root
		m.mu.Unlock()
		return nil
	case <-time.After(m.opts.Timeout):
		go func() { // a late mount is taken down again
			if r := <-done; r.err == nil {
				ForceUnmount(m.opts.Mountpoint)
			}
		}()
		return fmt.Errorf("lazyfs: mounting %s: no answer within %s", m.opts.Mountpoint, m.opts.Timeout)
	}
}

// Unmount takes the mount down, lazily (detached) when it is busy or the
// clean unmount does not end in time. It is idempotent.
func (m *FS) Unmount() error {
	m.mu.Lock()
	s := m.server
	m.server = nil
	m.mu.Unlock()
	if s == nil {
		return nil
	}
	done := make(chan error, 1)
	go func() { done <- s.Unmount() }()
	select {
	case err := <-done:
		if err == nil {
			return nil
		}
	case <-time.After(m.opts.Timeout):
	}
	if err := ForceUnmount(m.opts.Mountpoint); err != nil {
		return fmt.Errorf("lazyfs: unmounting %s: %w", m.opts.Mountpoint, err)
	}
	return nil
}

// PowerLoss discards every write not synced: it unmounts (the kernel
// hands its dirty pages over first), restores the backing directory to
// what was synced and mounts again. Nothing may use the mount meanwhile.
func (m *FS) PowerLoss() (Loss, error) {
	if err := m.Unmount(); err != nil {
		return Loss{}, err
	}
	loss, err := m.files.restore(m.opts.Backing)
	if err != nil {
		return loss, fmt.Errorf("lazyfs: power loss on %s: %w", m.opts.Backing, err)
	}
	return loss, m.mount()
}

// Writeback makes every write so far durable, as the kernel's writeback
// makes dirty pages durable within seconds: a later power loss keeps them
// although nothing synced them. For files written before the run begins
// (a storage format), whose loss would test the set-up, not the run.
func (m *FS) Writeback() { m.files.forget() }

// FailWrites makes writes, truncates, creates and syncs fail with errno
// (EIO or ENOSPC) until Heal.
func (m *FS) FailWrites(errno syscall.Errno) error {
	if errno != syscall.EIO && errno != syscall.ENOSPC {
		return fmt.Errorf("lazyfs: failing writes with %v: only EIO and ENOSPC", errno)
	}
	m.writeErr.Store(int64(errno))
	return nil
}

// FailReads makes reads fail with EIO until Heal. The kernel's cache of
// the files' content is dropped, so that reads reach the filesystem.
func (m *FS) FailReads() {
	m.readErr.Store(int64(syscall.EIO))
	m.mu.Lock()
	s, root := m.server, m.root
	m.mu.Unlock()
	if s != nil {
		forgetContent(root.EmbeddedInode())
	}
}

// Heal ends injected faults.
func (m *FS) Heal() {
	m.writeErr.Store(0)
	m.readErr.Store(0)
}

// Failed is how many operations injected faults have failed.
func (m *FS) Failed() int64 { return m.failed.Load() }

// Mountpoint is where the filesystem is mounted.
func (m *FS) Mountpoint() string { return m.opts.Mountpoint }

func (m *FS) writeFault() syscall.Errno { return m.fault(&m.writeErr) }

func (m *FS) readFault() syscall.Errno { return m.fault(&m.readErr) }

func (m *FS) fault(which *atomic.Int64) syscall.Errno {
	errno := syscall.Errno(which.Load())
	if errno != 0 {
		m.failed.Add(1)
	}
	return errno
}

// change saves, before ino's bytes [off, end) change through fd, the
// synced ones among them; end < 0 means up to the synced size.
func (m *FS) change(ino uint64, fd int, off, end int64) syscall.Errno {
	f, err := m.files.get(ino, func() (int64, error) {
		var st syscall.Stat_t
		err := syscall.Fstat(fd, &st)
		return st.Size, err
	})
	if err != nil {
		return fs.ToErrno(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if end < 0 {
		end = f.synced
	}
	return fs.ToErrno(f.save(fd, off, end))
}

// closeFuseOnExec marks this process's /dev/fuse descriptors close-on-exec.
// go-fuse opens the device without O_CLOEXEC, so a broker started after a
// mount would hold the device of every mount: when this process dies the
// kernel would not end those connections, and a broker exiting would wait
// forever on a flush to a server that is gone (seen on a local run: a
// zombie JVM holding its files' locks).
func closeFuseOnExec() {
	ents, _ := os.ReadDir("/proc/self/fd")
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if target, _ := os.Readlink("/proc/self/fd/" + e.Name()); target == "/dev/fuse" {
			syscall.CloseOnExec(fd)
		}
	}
}
