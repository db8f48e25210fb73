// Package ctxsleep is the one wait the harness's loops pace themselves
// with (workers' rates, retries' backoff, the nemesis schedule, restart
// pauses): a sleep that the loop's context ends early. It must not know
// what the loops do.
package ctxsleep
