package lazyfs

import (
	"context"
	"os"
	"path/filepath"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// node is a loopback node whose files report their writes and syncs to
// the mount's tracker and fail when a fault says so.
type node struct {
	*fs.LoopbackNode
	m *FS
}

var (
	_ fs.NodeWrapChilder     = (*node)(nil)
	_ fs.NodeOpener          = (*node)(nil)
	_ fs.NodeCreater         = (*node)(nil)
	_ fs.NodeSetattrer       = (*node)(nil)
	_ fs.NodeOpendirHandler  = (*node)(nil)
	_ fs.NodeCopyFileRanger  = (*node)(nil)
	_ fs.FileWriter          = (*handle)(nil)
	_ fs.FileReader          = (*handle)(nil)
	_ fs.FileFsyncer         = (*handle)(nil)
	_ fs.FileAllocater       = (*handle)(nil)
	_ fs.FilePassthroughFder = (*handle)(nil)
	_ fs.FileFsyncdirer      = (*dirHandle)(nil)
)

// WrapChild makes every node of the tree a tracked one.
func (n *node) WrapChild(_ context.Context, ops fs.InodeEmbedder) fs.InodeEmbedder {
	return &node{LoopbackNode: ops.(*fs.LoopbackNode), m: n.m}
}

// backing is the node's path in the backing directory.
func (n *node) backing() string {
	return filepath.Join(n.RootData.Path, n.Path(n.RootData.RootNode.EmbeddedInode()))
}

func (n *node) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	fh, fl, errno := n.LoopbackNode.Open(ctx, flags)
	if errno != 0 {
		return nil, 0, errno
	}
	return newHandle(fh, n.m), fl, 0
}

// Create tracks a file that did not exist as created: a power loss drops
// it unless it or its directory is synced first.
func (n *node) Create(ctx context.Context, name string, flags, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	if errno := n.m.writeFault(); errno != 0 {
		return nil, nil, 0, errno
	}
	_, err := os.Lstat(filepath.Join(n.backing(), name))
	existed := err == nil
	ch, fh, fl, errno := n.LoopbackNode.Create(ctx, name, flags, mode, out)
	if errno != 0 {
		return nil, nil, 0, errno
	}
	if !existed {
		n.m.files.created(out.Attr.Ino)
	}
	return ch, newHandle(fh, n.m), fl, 0
}

// Setattr saves what a truncate below the synced size cuts off.
func (n *node) Setattr(ctx context.Context, f fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	if size, ok := in.GetSize(); ok {
		if errno := n.m.writeFault(); errno != 0 {
			return errno
		}
		if errno := n.truncating(int64(size)); errno != 0 {
			return errno
		}
	}
	if h, ok := f.(*handle); ok {
		f = h.LoopbackFile // the loopback node sets attributes through its own file type
	}
	return n.LoopbackNode.Setattr(ctx, f, in, out)
}

func (n *node) truncating(size int64) syscall.Errno {
	h, err := os.Open(n.backing())
	if err != nil {
		return fs.ToErrno(err)
	}
	defer h.Close()
	var st syscall.Stat_t
	if err := syscall.Fstat(int(h.Fd()), &st); err != nil {
		return fs.ToErrno(err)
	}
	return n.m.change(st.Ino, int(h.Fd()), size, -1)
}

// OpendirHandle wraps the directory stream so that its fsync makes the
// directory's new files durable.
func (n *node) OpendirHandle(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	fh, fl, errno := n.LoopbackNode.OpendirHandle(ctx, flags)
	if errno != 0 {
		return nil, 0, errno
	}
	return &dirHandle{dirStream: fh.(dirStream), m: n.m, path: n.backing()}, fl, 0
}

// CopyFileRange is refused so that the kernel copies with reads and
// writes, which are tracked.
func (n *node) CopyFileRange(context.Context, fs.FileHandle, uint64, *fs.Inode, fs.FileHandle, uint64, uint64, uint64) (uint32, syscall.Errno) {
	return 0, syscall.ENOSYS
}

type dirStream interface {
	fs.FileReaddirenter
	fs.FileReleasedirer
	fs.FileSeekdirer
	fs.FileFsyncdirer
}

type dirHandle struct {
	dirStream
	m    *FS
	path string
}

func (d *dirHandle) Fsyncdir(ctx context.Context, flags uint32) syscall.Errno {
	if errno := d.m.writeFault(); errno != 0 {
		return errno
	}
	if errno := d.dirStream.Fsyncdir(ctx, flags); errno != 0 {
		return errno
	}
	d.m.files.dirSynced(d.path)
	return 0
}

// handle is an open file of the mount.
type handle struct {
	*fs.LoopbackFile
	m   *FS
	ino uint64 // of the backing file
}

func newHandle(fh fs.FileHandle, m *FS) *handle {
	h := &handle{LoopbackFile: fh.(*fs.LoopbackFile), m: m}
	h.withFd(func(fd int) syscall.Errno {
		var st syscall.Stat_t
		if syscall.Fstat(fd, &st) == nil {
			h.ino = st.Ino
		}
		return 0
	})
	return h
}

// PassthroughFd declines kernel passthrough: reads and writes must come
// here to be tracked and failed.
func (h *handle) PassthroughFd() (int, bool) { return 0, false }

func (h *handle) Read(ctx context.Context, buf []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	if errno := h.m.readFault(); errno != 0 {
		return nil, errno
	}
	return h.LoopbackFile.Read(ctx, buf, off)
}

func (h *handle) Write(ctx context.Context, data []byte, off int64) (uint32, syscall.Errno) {
	if errno := h.m.writeFault(); errno != 0 {
		return 0, errno
	}
	var n uint32
	errno := h.withFd(func(fd int) syscall.Errno {
		if errno := h.m.change(h.ino, fd, off, off+int64(len(data))); errno != 0 {
			return errno
		}
		w, err := syscall.Pwrite(fd, data, off)
		n = uint32(w)
		return fs.ToErrno(err)
	})
	return n, errno
}

func (h *handle) Allocate(ctx context.Context, off, size uint64, mode uint32) syscall.Errno {
	if errno := h.m.writeFault(); errno != 0 {
		return errno
	}
	return h.LoopbackFile.Allocate(ctx, off, size, mode)
}

// Fsync makes the file durable as it is (fsync and fdatasync alike).
func (h *handle) Fsync(ctx context.Context, flags uint32) syscall.Errno {
	if errno := h.m.writeFault(); errno != 0 {
		return errno
	}
	return h.withFd(func(fd int) syscall.Errno {
		var st syscall.Stat_t
		if err := syscall.Fstat(fd, &st); err != nil {
			return fs.ToErrno(err)
		}
		if err := syscall.Fsync(fd); err != nil {
			return fs.ToErrno(err)
		}
		h.m.files.synced(st.Ino, st.Size)
		return 0
	})
}

// withFd runs fn on the open file's descriptor.
func (h *handle) withFd(fn func(fd int) syscall.Errno) syscall.Errno {
	fd, ok := h.LoopbackFile.PassthroughFd()
	if !ok {
		return syscall.EBADF
	}
	return fn(fd)
}
