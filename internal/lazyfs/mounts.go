package lazyfs

import (
	"bufio"
	"errors"
	"os"
	"strings"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
)

// A Mounted is a lazyfs mount found on the host.
type Mounted struct {
	Path string
	Tag  string
	Dev  string // major:minor; the minor numbers the FUSE connection
}

// Mounts lists the lazyfs mounts of this mount namespace, whoever made
// them, from /proc/self/mountinfo.
func Mounts() ([]Mounted, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Mounted
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// "36 35 0:40 / /mnt/x rw,... shared:1 - fuse.lazyfs lazyfs-abc rw,..."
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		fields, after := strings.Fields(pre), strings.Fields(post)
		if !ok || len(fields) < 5 || len(after) < 2 || !strings.HasPrefix(after[0], "fuse") {
			continue
		}
		if tag, ok := strings.CutPrefix(after[1], SourcePrefix); ok {
			out = append(out, Mounted{Path: unescape(fields[4]), Tag: tag, Dev: fields[2]})
		}
	}
	return out, sc.Err()
}

// unescape undoes mountinfo's octal escapes of space, tab, newline and
// backslash.
func unescape(s string) string {
	r := strings.NewReplacer(`\040`, " ", `\011`, "\t", `\012`, "\n", `\134`, `\`)
	return r.Replace(s)
}

// Abort ends the FUSE connection of mount m (through fusectl, when it is
// mounted): every request waiting on it fails, so that no process stays
// stuck on a mount whose server is gone. It is for what a crashed run left.
func Abort(m Mounted) error {
	_, minor, ok := strings.Cut(m.Dev, ":")
	if !ok {
		return nil
	}
	err := os.WriteFile("/sys/fs/fuse/connections/"+minor+"/abort", []byte("1"), 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil // gone already, or no fusectl to ask
	}
	return err
}

// ForceUnmount detaches the mount at path at once (MNT_DETACH): what a
// crashed run left, whose server is gone, or a busy one.
func ForceUnmount(path string) error {
	err := syscall.Unmount(path, syscall.MNT_DETACH)
	if errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOENT) {
		return nil // not a mount point (any more)
	}
	return err
}

// forgetContent drops the kernel's cached content of every file under
// root, so that the next reads come to the filesystem.
func forgetContent(root *fs.Inode) {
	for _, ch := range root.Children() {
		if ch.IsDir() {
			forgetContent(ch)
			continue
		}
		ch.NotifyContent(0, 0)
	}
}
