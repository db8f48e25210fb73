// Package procstat reads what Linux's /proc says of a process: when it
// started (so a reused pid is not mistaken for the process a run started)
// and whether its threads are stopped by a signal (so a SIGSTOP or SIGCONT
// counts only once it took effect).
//
// It must not know what the processes are: brokers, worker processes and
// harness owners all look the same here.
package procstat
