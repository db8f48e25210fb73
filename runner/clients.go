package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/workers"
	"github.com/kafkachaos/kafkachaos/workers/proc"
)

// clients is a run's client workers: goroutines of this process
// (workers.Workload, the fast default) or worker processes of their own
// (proc.Pool, with workload.client-processes), whose crash is a SIGKILL.
type clients interface {
	Start(ctx context.Context) error
	Stop(ctx context.Context)
	Err() error
	NextProcess() int64
}

// openClients makes s's clients, recording into rec; the worker processes'
// librdkafka logs go to the run's client log in dir, as the in-process
// clients' do through logs. done closes what it opened.
func openClients(s generators.Scenario, prov cluster.Provider, rec *histories.Recorder, logs *client.Logs, dir string) (cl clients, done func() error, err error) {
	proc.Sweep() // worker processes and client JVMs a crashed run left
	if !s.Workload.ClientProcesses {
		fencer, _ := prov.(client.MemberFencer)
		w, err := workers.New(s, workers.Options{Bootstrap: prov.Bootstrap(), Recorder: rec, Fencer: fencer, Logs: logs})
		return w, func() error { return nil }, err
	}
	f, err := os.OpenFile(filepath.Join(dir, ClientLogFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("client log for worker processes: %w", err)
	}
	pool, err := proc.New(s, proc.Options{Bootstrap: prov.Bootstrap(), Recorder: rec, Stderr: f})
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return pool, f.Close, nil
}
