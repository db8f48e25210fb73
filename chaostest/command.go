package chaostest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
)

// The environment variables a Command's program finds its Env in.
const (
	EnvBootstrap       = "KAFKACHAOS_BOOTSTRAP"
	EnvInput           = "KAFKACHAOS_INPUT"
	EnvOutput          = "KAFKACHAOS_OUTPUT"
	EnvPartitions      = "KAFKACHAOS_PARTITIONS"
	EnvGroup           = "KAFKACHAOS_GROUP"
	EnvTransactionalID = "KAFKACHAOS_TRANSACTIONAL_ID"
	EnvStart           = "KAFKACHAOS_START"
)

// Command is a Service that runs a program, for code in another language
// or a binary as it is deployed: the program finds its Env in environment
// variables (EnvBootstrap, ...; EnvFromEnviron reads them in Go). It runs
// in a process group of its own, and a crash or the end of the run is
// SIGKILL of that whole group, a real crash: a wrapper (a shell, a script,
// a build tool) dies with what it started. At the end of the run no
// process the program started may be left: one that left the group
// (setsid, a daemon) is an error of the run naming its pid and command
// line, and is killed then. Should the harness itself die, the program it
// started is killed (Pdeathsig), not what that program started. Its
// output goes to command-<start>.log in the run directory. A program that
// exits on its own is noted in the verdict, with its exit status, and
// started again (what it left in its group is killed first). A killed
// program's consumer leaves its group only when its session times out,
// and a rebalance may wait for it as long as its max.poll.interval.ms:
// short ones (say 1s and 2s) keep the run short.
func Command(name string, args ...string) Service {
	return func(ctx context.Context, env Env) error {
		log, err := os.Create(filepath.Join(env.Dir, fmt.Sprintf("command-%d.log", env.Start)))
		if err != nil {
			return err
		}
		defer log.Close()
		cmd := exec.Command(name, args...)
		cmd.Env = append(os.Environ(), env.environ()...)
		cmd.Stdout, cmd.Stderr = log, log
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		g := env.groups.add(env.Start, cmd.Process.Pid)
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		select {
		case err = <-exited:
		case <-ctx.Done():
			g.kill()
			<-exited
		}
		g.kill() // what the program left in its group
		if ctx.Err() != nil {
			return nil // killed by the harness
		}
		return fmt.Errorf("%s: %w (output in %s)", name, err, log.Name())
	}
}

func (e Env) environ() []string {
	return []string{EnvBootstrap + "=" + e.Bootstrap, EnvInput + "=" + e.Input, EnvOutput + "=" + e.Output,
		EnvPartitions + "=" + strconv.Itoa(e.Partitions), EnvGroup + "=" + e.Group,
		EnvTransactionalID + "=" + e.TransactionalID, EnvStart + "=" + strconv.Itoa(e.Start)}
}

// EnvFromEnviron is the Env a Command's program was started with; an
// error names the first variable missing or malformed.
func EnvFromEnviron() (Env, error) {
	var e Env
	for _, v := range []struct {
		name string
		to   *string
	}{{EnvBootstrap, &e.Bootstrap}, {EnvInput, &e.Input}, {EnvOutput, &e.Output}, {EnvGroup, &e.Group},
		{EnvTransactionalID, &e.TransactionalID}} {
		if *v.to = os.Getenv(v.name); *v.to == "" {
			return e, fmt.Errorf("chaostest: %s is not set: not started by chaostest.Command", v.name)
		}
	}
	for _, v := range []struct {
		name string
		to   *int
	}{{EnvPartitions, &e.Partitions}, {EnvStart, &e.Start}} {
		n, err := strconv.Atoi(os.Getenv(v.name))
		if err != nil {
			return e, fmt.Errorf("chaostest: %s: %w", v.name, err)
		}
		*v.to = n
	}
	return e, nil
}
