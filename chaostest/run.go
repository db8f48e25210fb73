package chaostest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/model"
	"github.com/kafkachaos/kafkachaos/nemesis"
	"github.com/kafkachaos/kafkachaos/report"
	"github.com/kafkachaos/kafkachaos/runner"
)

// Run runs svc once and judges its output against want: start the
// cluster, start svc, produce the input while the faults play, heal, let
// svc catch up, stop it, read the output to its end, check the history.
// An error means no verdict could be reached (the cluster did not start,
// the final reads did not finish, svc broke the contract of Env); the run
// directory is then kept with what it has.
func Run(ctx context.Context, want Guarantee, svc Service, opts Options) (v Verdict, err error) {
	opts = opts.withDefaults()
	if err := opts.validate(); err != nil {
		return v, err
	}
	if want != ExactlyOnce && want != AtLeastOnce && want != AtMostOnce {
		return v, fmt.Errorf("chaostest: guarantee %v: state ExactlyOnce, AtLeastOnce or AtMostOnce", want)
	}
	prov, err := provider(opts)
	if err != nil {
		return v, fmt.Errorf("chaostest: %w", err)
	}
	dir, err := runner.MakeRunDir(runner.RunsRoot(opts.RunsDir), opts.Name, time.Now())
	if err != nil {
		return v, err
	}
	v.Dir, v.Want = dir, want
	defer func() {
		v.Kept = err != nil || v.failed() || opts.Keep
		if !v.Kept {
			os.RemoveAll(dir)
			os.Remove(filepath.Dir(dir)) // the test's directory, if now empty
		}
	}()
	s := scenario(opts, filepath.Base(dir))
	if err := runner.Injectable(prov, s); err != nil {
		return v, fmt.Errorf("chaostest: %w", err)
	}
	if err := generators.Save(dir, s); err != nil {
		return v, err
	}
	if err := prov.Start(ctx, runner.ClusterSpec(s, dir)); err != nil {
		prov.Stop(context.Background())
		return v, fmt.Errorf("chaostest: starting cluster %s: %w", prov.Name(), err)
	}
	defer prov.Stop(context.Background())
	r := &run{opts: opts, s: s, prov: prov, svc: svc, dir: dir, rng: rand.New(rand.NewPCG(uint64(opts.Seed), 16))}
	herr := r.record(ctx)
	if r.input == nil {
		// Nothing ran (the schedule or the input producer could not be
		// made): there is no history to judge.
		return v, fmt.Errorf("chaostest: run %s recorded nothing: %w", dir, herr)
	}
	if herr != nil && ctx.Err() != nil {
		return v, fmt.Errorf("chaostest: run interrupted, history kept unchecked in %s: %w", dir, herr)
	}
	if err := v.judge(dir, r, herr); err != nil {
		return v, err
	}
	if err := report.Write(dir, report.Options{}); err != nil {
		return v, fmt.Errorf("chaostest: report: %w", err)
	}
	if herr != nil {
		return v, fmt.Errorf("chaostest: run %s: %w", dir, herr)
	}
	return v, nil
}

// provider is the cluster opts name: an existing one, or one of the
// harness's providers.
func provider(opts Options) (cluster.Provider, error) {
	if opts.Bootstrap != "" {
		return newExisting(opts.Bootstrap), nil
	}
	return runner.DefaultProviders().New(opts.Cluster)
}

// scenario is the run as scenario.json describes it: the cluster, the
// input and output topics, the harness's own input producer and the
// faults. Key k is the pipeline from input partition k to output
// partition k; the map names the output partition, where its values are
// read.
func scenario(o Options, id string) generators.Scenario {
	s := pipeline(o, id)
	if name, version, err := generators.ParseClient(o.Client); err == nil {
		// the code under test is the consumer role; validClient checked it
		s.Clients, s.ClientVersion = map[string]string{generators.RoleConsumer: name}, version
	}
	return s
}

// pipeline is the run's scenario without the client under test.
func pipeline(o Options, id string) generators.Scenario {
	rf := min(o.Brokers, 3)
	keys := generators.SequentialKeys(o.Partitions, "chaostest-in-"+id, "chaostest-out-"+id)
	for k := range o.Partitions {
		keys.Map[fmt.Sprint(k)] = keys.Map[fmt.Sprint(o.Partitions+k)]
		delete(keys.Map, fmt.Sprint(o.Partitions+k))
	}
	return generators.Scenario{
		Name: o.Name, Seed: o.Seed,
		Cluster: generators.Cluster{Provider: o.Cluster, Brokers: o.Brokers},
		Keys:    keys,
		Topic:   model.TopicConfig{ReplicationFactor: rf, MinInsyncReplicas: max(1, rf-1)},
		Producer: generators.Producer{ProducerConfig: model.DefaultProducer(),
			DeliveryTimeout: generators.Duration(inputDeliveryTimeout)},
		// The consumers are the starts of the code under test, in its group.
		Workload: generators.Workload{Producers: 1, Lanes: inputLanes, Consumers: o.Instances, Mode: generators.ModeGroup,
			Group: "chaostest-" + id, MaxValues: o.Records},
		Nemesis:   o.Faults,
		TimeLimit: generators.Duration(o.Duration),
		Replay:    "go test -run '^" + o.Name + "$' (the code under test is the test's own)",
	}
}

// run is one run in progress.
type run struct {
	opts  Options
	s     generators.Scenario
	prov  cluster.Provider
	svc   Service
	dir   string
	procs client.Processes
	input *inputLog
	sup   *supervisor
	logs  *client.Logs // librdkafka's lines of the harness's own clients
	// groups is the process groups Command started.
	groups procGroups
	// faults is the schedule's faults, in Options.Faults order.
	faults []*tracked
	// drained says whether the code caught up within Options.Drain.
	drained string
	// end is the input and the group's offsets once the code stopped; nil
	// when they could not be read.
	end *inputEnd

	mu  sync.Mutex
	rng *rand.Rand
}

func (r *run) intN(n int) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rng.IntN(n)
}

// env is what the code under test is given.
func (r *run) env() Env {
	return Env{Bootstrap: r.prov.Bootstrap(), Input: r.s.Keys.Topic, Output: r.s.Keys.OutputTopic,
		Partitions: r.s.Keys.Count, Group: r.s.Workload.Group, TransactionalID: r.s.Workload.Group, Dir: r.dir, groups: &r.groups}
}

// record is the recorded part of the run, history.jsonl open throughout.
func (r *run) record(ctx context.Context) error {
	hw, err := histories.Create(filepath.Join(r.dir, report.HistoryFile))
	if err != nil {
		return err
	}
	logs, closeLogs, err := runner.OpenClientLog(r.dir)
	if err != nil {
		return errors.Join(err, hw.Close())
	}
	r.logs = logs
	rec := histories.NewRecorder(hw, histories.RecorderConfig{})
	err = errors.Join(r.play(ctx, rec), closeLogs())
	if cerr := rec.Close(); cerr != nil {
		err = errors.Join(err, fmt.Errorf("closing history: %w", cerr))
	}
	return err
}

// play: the code and the input producer start, the faults play for
// Duration, then everything is healed, the code catches up and stops,
// nothing it started is left, the output is read to its end, and the input
// and the group's offsets are read back (inputEnd).
func (r *run) play(ctx context.Context, rec *histories.Recorder) error {
	sup := newSupervisor(r.svc, r.env(), r.opts, r.intN)
	r.sup = sup
	sched, err := r.schedule(sup)
	if err != nil {
		return err
	}
	in, err := startInput(ctx, r, rec)
	if err != nil {
		return err
	}
	r.input = in
	sup.start(ctx)
	began := time.Now()
	wctx, cancel := context.WithDeadline(ctx, began.Add(r.opts.Duration))
	defer cancel()
	// A step at the run's very end must not lose the race with its
	// deadline: the schedule has scheduleSlack more to start its steps.
	nctx, ncancel := context.WithDeadline(ctx, began.Add(r.opts.Duration+scheduleSlack))
	defer ncancel()
	nemErr := nemesis.Run(nctx, sched, rec, r.nemesisOptions()...)
	<-wctx.Done()
	if ctx.Err() != nil {
		sup.stop()
		return errors.Join(ctx.Err(), in.close(), r.groups.survivors())
	}
	err = errors.Join(scheduleErr(nemErr, r.faults), in.close())
	err = errors.Join(err, r.drain(ctx))
	sup.stop()
	err = errors.Join(err, r.groups.survivors(), r.finalReads(ctx, rec))
	end, eerr := r.readInputEnd(ctx)
	r.end = end
	return errors.Join(err, eerr)
}

// nemesisOptions: a fault counts as healed only once the cluster is whole
// again, as in every run.
func (r *run) nemesisOptions() []nemesis.Option {
	if hc, ok := r.prov.(cluster.HealthChecker); ok {
		return []nemesis.Option{nemesis.WithHealth(hc, nemesis.HealTimeout)}
	}
	return nil
}

// finalReads reads every output partition from its beginning to its end.
func (r *run) finalReads(ctx context.Context, rec *histories.Recorder) error {
	keys := make(map[histories.Key]client.TopicPartition, r.s.Keys.Count)
	for k := range r.s.Keys.Count {
		keys[histories.Key(k)] = client.TopicPartition{Topic: r.s.Keys.OutputTopic, Partition: int32(k)}
	}
	km, err := client.NewKeyMap(keys)
	if err != nil {
		return err
	}
	fctx, cancel := context.WithTimeout(ctx, finalReadTimeout)
	defer cancel()
	return client.FinalReads(fctx, client.FinalReadOptions{Bootstrap: r.prov.Bootstrap(), Keys: km, Recorder: rec,
		Process: r.procs.Next(), ReadCommitted: !r.opts.ReadUncommitted, Logs: r.logs})
}

// scheduleSlack is how long past Options.Duration the fault schedule may
// still start a step: one at the very end, or one a slow start before it
// held back a little.
const scheduleSlack = 500 * time.Millisecond

// finalReadTimeout bounds the final reads of the output.
const finalReadTimeout = time.Minute
