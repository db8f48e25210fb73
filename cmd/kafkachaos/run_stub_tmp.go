package main

// runCmd is replaced by run.go (the runner's engineer): delete this file then.
func runCmd(args []string) int { return exitError }
