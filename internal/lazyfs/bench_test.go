package lazyfs

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// BenchmarkAppend appends 4 KiB records to a segment file, as a broker
// appends produce batches, on the backing directory itself (direct) and
// through a lazyfs of it, without fsync and with one every 64 records.
// The ratio of lazyfs to direct is the filesystem's cost under a broker.
func BenchmarkAppend(b *testing.B) {
	if err := Available(); err != nil {
		b.Skip(err)
	}
	dir := b.TempDir()
	back, mnt := filepath.Join(dir, "backing"), filepath.Join(dir, "mnt")
	if err := os.Mkdir(back, 0o755); err != nil {
		b.Fatal(err)
	}
	m, err := Mount(Options{Backing: back, Mountpoint: mnt, Tag: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Unmount()
	record := make([]byte, 4096)
	for _, via := range []struct{ name, dir string }{{"direct", back}, {"lazyfs", mnt}} {
		for _, syncEvery := range []int{0, 64} {
			b.Run("via="+via.name+"/fsync-every="+itoa(syncEvery), func(b *testing.B) {
				f, err := os.Create(filepath.Join(via.dir, "seg-"+itoa(syncEvery)))
				if err != nil {
					b.Fatal(err)
				}
				defer f.Close()
				b.SetBytes(int64(len(record)))
				for i := range b.N {
					if _, err := f.Write(record); err != nil {
						b.Fatal(err)
					}
					if syncEvery > 0 && i%syncEvery == syncEvery-1 {
						if err := f.Sync(); err != nil {
							b.Fatal(err)
						}
					}
				}
			})
		}
	}
}

// itoa names a sync interval, 0 being none.
func itoa(n int) string {
	if n == 0 {
		return "never"
	}
	return strconv.Itoa(n)
}
