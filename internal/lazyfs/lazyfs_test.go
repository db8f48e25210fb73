package lazyfs

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// mountTemp mounts a lazyfs of a temporary directory and returns it with
// the mountpoint; the test's end unmounts it.
func mountTemp(t *testing.T) (*FS, string) {
	t.Helper()
	if err := Available(); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	back, mnt := filepath.Join(dir, "backing"), filepath.Join(dir, "mnt")
	if err := os.Mkdir(back, 0o755); err != nil {
		t.Fatal(err)
	}
	m, err := Mount(Options{Backing: back, Mountpoint: mnt, Tag: "unittest"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := m.Unmount(); err != nil {
			t.Error(err)
		}
	})
	return m, mnt
}

// write writes b at off of path (created when missing), fsyncing it when
// sync is set.
func write(t *testing.T, path string, off int64, b []byte, sync bool) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
	if sync {
		if err := f.Sync(); err != nil {
			t.Fatal(err)
		}
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func syncDir(t *testing.T, dir string) {
	t.Helper()
	d, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		t.Fatal(err)
	}
}

func TestPowerLossKeepsSyncedWritesOnly(t *testing.T) {
	m, mnt := mountTemp(t)
	log := filepath.Join(mnt, "00.log")
	write(t, log, 0, []byte("synced-"), true)
	write(t, log, 7, []byte("appended"), false)
	write(t, log, 0, []byte("XX"), false) // overwrites synced bytes
	if got := read(t, log); got != "XXnced-appended" {
		t.Fatalf("before the power loss, read %q: the unsynced writes must be visible", got)
	}
	loss, err := m.PowerLoss()
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, log); got != "synced-" {
		t.Errorf("after the power loss, read %q, want the synced %q", got, "synced-")
	}
	if loss.Files != 1 || loss.Bytes != 8+2 {
		t.Errorf("loss %+v, want 1 file and 10 bytes (8 appended, 2 overwritten)", loss)
	}
}

func TestPowerLossWithoutUnsyncedWritesChangesNothing(t *testing.T) {
	m, mnt := mountTemp(t)
	log := filepath.Join(mnt, "00.log")
	write(t, log, 0, []byte("abc"), true)
	write(t, log, 3, []byte("def"), true)
	loss, err := m.PowerLoss()
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, log); got != "abcdef" || loss != (Loss{}) {
		t.Errorf("read %q with loss %+v, want every synced byte and no loss", got, loss)
	}
}

func TestPowerLossUndoesTruncates(t *testing.T) {
	m, mnt := mountTemp(t)
	idx := filepath.Join(mnt, "00.index")
	write(t, idx, 0, []byte("0123456789"), true)
	if err := os.Truncate(idx, 2); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(idx, 100); err != nil { // preallocated, as Kafka's indexes are
		t.Fatal(err)
	}
	if _, err := m.PowerLoss(); err != nil {
		t.Fatal(err)
	}
	if got := read(t, idx); got != "0123456789" {
		t.Errorf("read %q, want the synced 0123456789", got)
	}
}

func TestPowerLossDropsFilesNeverSynced(t *testing.T) {
	m, mnt := mountTemp(t)
	sub := filepath.Join(mnt, "topic-0")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(sub, "never.log"), 0, []byte("x"), false)
	write(t, filepath.Join(sub, "synced.log"), 0, []byte("kept"), true)
	write(t, filepath.Join(mnt, "dir-synced.log"), 0, []byte("data"), false)
	syncDir(t, mnt) // the entry is durable, its data is not
	loss, err := m.PowerLoss()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(sub, "never.log")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("never.log, created and never synced: stat says %v, want it gone", err)
	}
	if got := read(t, filepath.Join(sub, "synced.log")); got != "kept" {
		t.Errorf("synced.log reads %q, want kept", got)
	}
	if got := read(t, filepath.Join(mnt, "dir-synced.log")); got != "" {
		t.Errorf("dir-synced.log reads %q, want it empty (its directory synced, not its data)", got)
	}
	if loss.Dropped != 1 {
		t.Errorf("loss %+v, want 1 file dropped", loss)
	}
}

// What was written before a Writeback survives a power loss unsynced, as
// pages the kernel wrote back would; what was written after it does not.
func TestWritebackMakesEarlierWritesDurable(t *testing.T) {
	m, mnt := mountTemp(t)
	sub := filepath.Join(mnt, "data")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(sub, "bootstrap.checkpoint"), 0, []byte("formatted"), false)
	m.Writeback()
	write(t, filepath.Join(sub, "bootstrap.checkpoint"), 9, []byte(" later"), false)
	write(t, filepath.Join(sub, "after.log"), 0, []byte("x"), false)
	if _, err := m.PowerLoss(); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(sub, "bootstrap.checkpoint")); got != "formatted" {
		t.Errorf("bootstrap.checkpoint reads %q, want what was written back", got)
	}
	if _, err := os.Stat(filepath.Join(sub, "after.log")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after.log, created after the writeback and never synced: stat says %v, want it gone", err)
	}
}

// mmapEnv names the file TestMmapWriter writes through a shared mapping:
// a process must not fault on its own FUSE mount's pages (the server's
// threads would wait on the mm lock the faulting one holds), so the
// writer is this test binary run again.
const mmapEnv = "LAZYFS_MMAP_FILE"

func TestMmapWriter(t *testing.T) {
	path := os.Getenv(mmapEnv)
	if path == "" {
		t.Skip("a helper of TestPowerLossDiscardsUnsyncedMmapWrites")
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := syscall.Mmap(int(f.Fd()), 0, 4096, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(b)
	copy(b, "synced")
	if err := f.Sync(); err != nil { // as MappedByteBuffer.force's msync reaches fsync
		t.Fatal(err)
	}
	copy(b[100:], "lost")
}

func TestPowerLossDiscardsUnsyncedMmapWrites(t *testing.T) {
	m, mnt := mountTemp(t)
	idx := filepath.Join(mnt, "00.timeindex")
	write(t, idx, 0, make([]byte, 4096), true)
	cmd := exec.Command(os.Args[0], "-test.run=^TestMmapWriter$", "-test.timeout=30s")
	cmd.Env = append(os.Environ(), mmapEnv+"="+idx)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mmap writer: %v\n%s", err, out)
	}
	if _, err := m.PowerLoss(); err != nil {
		t.Fatal(err)
	}
	got := []byte(read(t, idx))
	if !bytes.HasPrefix(got, []byte("synced")) || !bytes.Equal(got[100:104], make([]byte, 4)) {
		t.Errorf("read %q...%q, want the synced prefix and the unsynced mmap write gone", got[:6], got[100:104])
	}
}

func TestFailWritesReachTheWriterUntilHeal(t *testing.T) {
	for _, errno := range []syscall.Errno{syscall.EIO, syscall.ENOSPC} {
		t.Run(errno.Error(), func(t *testing.T) {
			m, mnt := mountTemp(t)
			log := filepath.Join(mnt, "00.log")
			write(t, log, 0, []byte("before"), true)
			if err := m.FailWrites(errno); err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.Write([]byte("during")); !errors.Is(err, errno) {
				t.Errorf("write during the fault: %v, want %v", err, errno)
			}
			if err := f.Sync(); !errors.Is(err, errno) {
				t.Errorf("fsync during the fault: %v, want %v", err, errno)
			}
			if m.Failed() < 2 {
				t.Errorf("Failed() = %d, want at least the write and the fsync", m.Failed())
			}
			m.Heal()
			if _, err := f.Write([]byte("after")); err != nil {
				t.Errorf("write after the heal: %v", err)
			}
			if got := read(t, log); got != "beforeafter" {
				t.Errorf("read %q, want beforeafter", got)
			}
		})
	}
}

func TestFailWritesRefusesOtherErrnos(t *testing.T) {
	m, _ := mountTemp(t)
	if err := m.FailWrites(syscall.EPERM); err == nil {
		t.Error("FailWrites(EPERM) accepted, want only EIO and ENOSPC")
	}
}

func TestFailReadsReachTheReaderUntilHeal(t *testing.T) {
	m, mnt := mountTemp(t)
	log := filepath.Join(mnt, "00.log")
	write(t, log, 0, []byte("cached"), true)
	if got := read(t, log); got != "cached" { // now in the kernel's cache
		t.Fatalf("read %q", got)
	}
	m.FailReads()
	if _, err := os.ReadFile(log); !errors.Is(err, syscall.EIO) {
		t.Errorf("read during the fault: %v, want EIO", err)
	}
	write(t, log, 6, []byte("!"), false) // writes still work
	m.Heal()
	if got := read(t, log); got != "cached!" {
		t.Errorf("read after the heal %q, want cached!", got)
	}
}

func TestMountsAreTaggedAndUnmountIsIdempotent(t *testing.T) {
	m, mnt := mountTemp(t)
	tag := m.opts.Tag
	found := func() bool {
		ms, err := Mounts()
		if err != nil {
			t.Fatal(err)
		}
		return slices.ContainsFunc(ms, func(m Mounted) bool { return m.Path == mnt && m.Tag == tag && m.Dev != "" })
	}
	if !found() {
		t.Fatalf("mount %s tagged %s not in Mounts()", mnt, tag)
	}
	if err := m.Unmount(); err != nil {
		t.Fatal(err)
	}
	if err := m.Unmount(); err != nil {
		t.Errorf("second Unmount: %v", err)
	}
	if found() {
		t.Errorf("mount %s still listed after Unmount", mnt)
	}
}

func TestForceUnmountRemovesAMountWhoseServerIsBusy(t *testing.T) {
	m, mnt := mountTemp(t)
	f, err := os.Create(filepath.Join(mnt, "open"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := ForceUnmount(mnt); err != nil {
		t.Fatal(err)
	}
	ms, _ := Mounts()
	for _, x := range ms {
		if x.Path == mnt {
			t.Errorf("%s still mounted after ForceUnmount", mnt)
		}
	}
	_ = m
}

// A process started after a mount does not hold the FUSE device: if it
// did, the harness's death would leave the connection up and that process
// stuck in its exit, flushing to a server that is gone.
func TestProcessesStartedAfterAMountDoNotHoldTheDevice(t *testing.T) {
	mountTemp(t)
	out, err := exec.Command("sh", "-c", "ls -l /proc/$$/fd").CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if strings.Contains(string(out), "/dev/fuse") {
		t.Errorf("a child holds /dev/fuse:\n%s", out)
	}
}
