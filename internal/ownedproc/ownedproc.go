// Package ownedproc tags the command line of a process the harness starts
// (a worker process, a Java client's JVM) with its owner, so that one
// outliving a harness that crashed can be found and killed by the next run
// (workers/proc's Sweep reads the tag).
//
// It must not know what the tagged processes do.
package ownedproc

import (
	"fmt"
	"os"

	"github.com/kafkachaos/kafkachaos/internal/procstat"
)

// Arg marks a tagged command line; the argument after it is
// "owner=" + Tag of the owner.
const Arg = "kafkachaos-worker"

// Tag names process pid as an owner: its pid and start time, so a pid
// reused after a crash is not taken for it.
func Tag(pid int) string { return fmt.Sprintf("%d:%s", pid, procstat.StartTime(pid)) }

// Args are the arguments that tag a command line as this process's.
func Args() []string { return []string{Arg, "owner=" + Tag(os.Getpid())} }
