package lazyfs

import (
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// undo is bytes a write or a truncate overwrote below the synced size.
type undo struct {
	off  int64
	data []byte
}

// file is what a power loss would leave of one backing file: its size
// as of the last sync and the synced bytes overwritten since. A file that
// was never written through the mount has none.
type file struct {
	mu      sync.Mutex
	synced  int64
	undos   []undo
	created bool // since the last sync of it or of its directory: dropped
}

// files is every tracked file, by backing inode.
type files struct {
	mu sync.Mutex
	by map[uint64]*file
}

// get returns ino's state, made from size (the file's size before the
// change about to be made) the first time.
func (t *files) get(ino uint64, size func() (int64, error)) (*file, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if f := t.by[ino]; f != nil {
		return f, nil
	}
	n, err := size()
	if err != nil {
		return nil, err
	}
	f := &file{synced: n}
	t.by[ino] = f
	return f, nil
}

// forget drops every file's state: each is durable as it stands.
func (t *files) forget() {
	t.mu.Lock()
	defer t.mu.Unlock()
	clear(t.by)
}

// created starts a new file's state: nothing of it is durable yet.
func (t *files) created(ino uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.by[ino] = &file{created: true}
}

// synced marks ino durable at its current size.
func (t *files) synced(ino uint64, size int64) {
	t.mu.Lock()
	f := t.by[ino]
	t.mu.Unlock()
	if f == nil {
		return // never written: nothing to forget
	}
	f.mu.Lock()
	f.synced, f.undos, f.created = size, nil, false
	f.mu.Unlock()
}

// dirSynced makes the files created in dir (a backing directory) durable
// entries, at their synced sizes.
func (t *files) dirSynced(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			continue
		}
		if f := t.by[inoOf(info)]; f != nil {
			f.mu.Lock()
			f.created = false
			f.mu.Unlock()
		}
	}
}

// save records, before a change of [off, end) in f, the synced bytes it
// overwrites, read from fd.
func (f *file) save(fd int, off, end int64) error {
	end = min(end, f.synced)
	if off >= end {
		return nil
	}
	// fd may be open for writing only: read through a descriptor of its own.
	r, err := os.Open(fmt.Sprintf("/proc/self/fd/%d", fd))
	if err != nil {
		return err
	}
	defer r.Close()
	b := make([]byte, end-off)
	n, err := r.ReadAt(b, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	f.undos = append(f.undos, undo{off: off, data: b[:n]})
	return nil
}

// Loss is what a power loss discarded.
type Loss struct {
	Files   int // files cut back or restored
	Dropped int // files created and never synced, removed
	// Bytes is the unsynced length cut off files (space a file was
	// extended by without writing, as Kafka preallocates its indexes,
	// included) plus the synced bytes written back over unsynced ones.
	Bytes int64
}

// restore applies a power loss to the backing directory root: every
// tracked file back to its synced state, created ones removed. The
// tracked state is then empty.
func (t *files) restore(root string) (Loss, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var loss Loss
	var errs []error
	err := filepath.WalkDir(root, func(path string, d iofs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil // gone meanwhile, or a directory
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		f := t.by[inoOf(info)]
		if f == nil {
			return nil
		}
		errs = append(errs, f.restore(path, info.Size(), &loss))
		return nil
	})
	t.by = map[uint64]*file{}
	return loss, errors.Join(append(errs, err)...)
}

// restore puts path (size bytes now) back to f's synced state.
func (f *file) restore(path string, size int64, loss *Loss) error {
	if f.created {
		loss.Dropped++
		loss.Bytes += size
		return os.Remove(path)
	}
	if size == f.synced && len(f.undos) == 0 {
		return nil
	}
	h, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer h.Close()
	loss.Files++
	loss.Bytes += max(0, size-f.synced)
	for i := len(f.undos) - 1; i >= 0; i-- {
		u := f.undos[i]
		loss.Bytes += int64(len(u.data))
		if _, err := h.WriteAt(u.data, u.off); err != nil {
			return fmt.Errorf("restoring %s: %w", path, err)
		}
	}
	if err := h.Truncate(f.synced); err != nil {
		return fmt.Errorf("restoring %s: %w", path, err)
	}
	return h.Sync()
}

func inoOf(info iofs.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return st.Ino
	}
	return 0
}
