// Package lazyfs is a FUSE passthrough filesystem that keeps the writes
// made since a file's last fsync apart, so that a "power loss" can discard
// them: LazyFS's model (Jepsen, etcd's robustness suite) of a page cache
// that a crash takes with it. It also fails writes (EIO or ENOSPC) or
// reads (EIO) on request, for disk faults.
//
// A mount mirrors a backing directory: every operation passes through at
// once, so a reader sees what was written as it would through the page
// cache. What is durable is tracked per file (by its backing inode):
//
//   - a file's content as of its last fsync or fdatasync: a write or a
//     truncate below the synced size saves the bytes it overwrites, and a
//     power loss writes them back and cuts the file to its synced size;
//   - a file created since is dropped by a power loss unless it, or its
//     directory, was fsynced (then it survives at its synced size);
//   - renames, unlinks and directories are durable at once (a journalled
//     filesystem's metadata), which is the kind to the writer side of
//     the model; file data is where Kafka's flush settings matter.
//
// PowerLoss unmounts (so that the kernel's dirty pages, mmap'd index
// pages included, reach the filesystem and are discarded with the rest),
// restores the backing directory and mounts again on a cold cache. Nothing
// may use the mount across it: the caller kills its processes first.
//
// Every mount's source is "lazyfs-<tag>" (a run id), so Mounts finds what
// a crashed run left and ForceUnmount removes it.
//
// Use:
//
//	m, err := lazyfs.Mount(lazyfs.Options{Backing: back, Mountpoint: mnt, Tag: runID})
//	defer m.Unmount()
//	... // a process writes under mnt, some of it fsynced
//	loss, err := m.PowerLoss() // unsynced writes gone; loss says how much
//	m.FailWrites(syscall.ENOSPC) // then m.Heal()
//
// It must not know about Kafka, brokers or runs beyond the tag it is
// given: it is a filesystem with a switch on it.
package lazyfs
