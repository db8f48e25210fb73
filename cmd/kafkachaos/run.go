package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/model"
	"github.com/kafkachaos/kafkachaos/runner"
)

// runCmd is `kafkachaos run`: one chaos run, from flags or a saved
// scenario. Exit 0 when the observed guarantee satisfies the expected one,
// 1 when it does not, 2 on any error.
func runCmd(args []string, stdout, stderr io.Writer) int { return runWith(args, stdout, stderr) }

// runFlags are the flags that describe a scenario (all but --scenario,
// --runs, --keep, --quiet).
type runFlags struct {
	cluster, workload, nemesis, crashPoint string
	acks, isolation, commit                string
	timeLimit, maxPollInterval             time.Duration
	seed                                   int64
	retries, maxInFlight, keys, producers  int
	consumers, brokers, replicationFactor  int
	rate, faultProbability                 float64
	idempotence, transactional             bool
	clientProcesses                        bool
	client, inventory                      string
}

func (f *runFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.cluster, "cluster", "embedded", "cluster provider")
	fs.DurationVar(&f.timeLimit, "time-limit", 10*time.Second, "how long the workload runs (faults included); then heal, final reads, check")
	fs.Int64Var(&f.seed, "seed", 1, "seed of the run's choices (and of --workload random)")
	fs.StringVar(&f.workload, "workload", "consume", "produce (producers only), consume (producers and a consumer group), or random (a whole scenario drawn from --seed)")
	fs.StringVar(&f.nemesis, "nemesis", "", "comma list of fault kinds, each active over the middle 80% of the run: "+strings.Join(generators.Kinds(), ", "))
	fs.StringVar(&f.crashPoint, "crash-point", generators.CrashAnywhere, "where crash-consumer lands: anywhere, after-commit, before-commit")
	fs.Float64Var(&f.faultProbability, "fault-probability", 0.3, "share of requests a request fault (lost-ack, delay, drop-connections) hits")
	fs.StringVar(&f.acks, "acks", "all", "producer acks: 0, 1 or all")
	fs.IntVar(&f.retries, "retries", 2147483647, "producer retries")
	fs.BoolVar(&f.idempotence, "idempotence", true, "enable.idempotence (turned off by --acks 0|1 unless given)")
	fs.IntVar(&f.maxInFlight, "max-in-flight", 5, "max.in.flight.requests.per.connection")
	fs.BoolVar(&f.transactional, "transactional", false, "a transactional copy: two consume-transform-produce copiers copy the input keys to topic out, a tenth of their transactions aborted on purpose")
	fs.StringVar(&f.isolation, "isolation", string(model.ReadCommitted), "consumer isolation.level: read_committed or read_uncommitted")
	fs.StringVar(&f.commit, "commit-strategy", string(model.CommitAfterProcessing), "consumer commits: auto, before-processing, after-processing, transactional")
	fs.DurationVar(&f.maxPollInterval, "max-poll-interval", 0, "consumer max.poll.interval.ms (0: librdkafka's 300s); a stall-consumer past it is evicted")
	fs.IntVar(&f.keys, "keys", 3, "keys (partitions)")
	fs.IntVar(&f.brokers, "brokers", 3, "brokers in the cluster")
	fs.IntVar(&f.replicationFactor, "replication-factor", 3, "replicas of each partition (min.insync.replicas stays 2, or 1 with one replica); below --brokers, reassign has a broker to move one to")
	fs.IntVar(&f.producers, "producers", 2, "producers")
	fs.IntVar(&f.consumers, "consumers", 2, "consumers of the group (workload consume)")
	fs.Float64Var(&f.rate, "rate", 500, "ops per second over all workers; 0 = as fast as they go")
	fs.BoolVar(&f.clientProcesses, "client-processes", false, "run every client in a worker process of its own: crashes are SIGKILL, pause-client SIGSTOPs one")
	fs.StringVar(&f.inventory, "inventory", "", inventoryUsage)
	fs.StringVar(&f.client, "client", generators.ClientLibrdkafka, "client under test, NAME[@VERSION]: librdkafka, java[@kafka-clients release] or franz-go (java and franz-go run producers, consumers, transactional copiers and txn queues; the roles a client does not run stay librdkafka, named in the scenario)")
}

func runWith(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var rf runFlags
	rf.register(fs)
	scenarioFile := fs.String("scenario", "", "replay this scenario.json (or run directory) exactly; scenario flags are then refused")
	runs := fs.String("runs", "", "runs root (default $KAFKACHAOS_RUNS, else runs/ in the module root)")
	keep := fs.Bool("keep", false, "keep the run directory even when the guarantee held")
	quiet := fs.Bool("quiet", false, "no progress on stderr")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: kafkachaos run [flags]            run a scenario built from flags")
		fmt.Fprintln(stderr, "       kafkachaos run --scenario FILE     replay a saved scenario")
		fmt.Fprintln(stderr, "exit status: 0 guarantee held, 1 observed weaker than expected, 2 error")
		fs.PrintDefaults()
	}
	if exit, ok := parseFlags(fs, args); !ok {
		return exit
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "kafkachaos run: unexpected argument %q\n", fs.Arg(0))
		return exitError
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s, err := scenarioOf(ctx, rf, set, *scenarioFile)
	var provs runner.Providers
	if err == nil {
		provs, err = providersFor(s.Cluster.Provider, rf.inventory)
	}
	if err != nil {
		fmt.Fprintln(stderr, "kafkachaos run:", err)
		return exitError
	}
	opts := runner.Options{RunsDir: *runs, TestName: s.Name, Keep: *keep, Providers: provs}
	if !*quiet {
		opts.Progress, opts.TTY = stderr, isTerminal(stderr)
	}
	out, err := runner.Run(ctx, s, opts)
	if out.Dir != "" && out.Kept {
		fmt.Fprintln(stdout, "run dir:", out.Dir)
	}
	if err != nil {
		fmt.Fprintln(stderr, "kafkachaos run:", err)
		return exitError
	}
	fmt.Fprintf(stdout, "expected %s, observed %s: %s\n", out.Expected.EndToEnd, out.Observed.EndToEnd, verdict(out.Held))
	for _, a := range out.Result.AnomalyTypes {
		fmt.Fprintf(stdout, "  %-22s %d\n", a, out.Result.Counts[a])
	}
	then := "replay: " + out.Scenario.Replay
	if !out.Kept {
		then = "run directory removed, as the guarantee held (--keep keeps it)"
	}
	fmt.Fprintf(stdout, "ops %d, faults fired %d, crashes %d; %s\n", out.Stats.Ops, out.Stats.FaultsFired, out.Stats.Crashes, then)
	if !out.Held {
		return exitInvalid
	}
	return exitValid
}

func verdict(held bool) string {
	if held {
		return "guarantee held"
	}
	return "GUARANTEE VIOLATED"
}

// isTerminal reports whether w is a terminal and not under CI: only then is
// a progress line rewritten in place.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("CI") != "" {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// scenarioOf loads the replayed scenario, or builds one from the flags.
// With --scenario, --inventory gives the external cluster the scenario
// names, and --cluster may only repeat the scenario's provider.
func scenarioOf(ctx context.Context, rf runFlags, set map[string]bool, file string) (generators.Scenario, error) {
	if file != "" {
		for name := range set {
			if name != "scenario" && name != "runs" && name != "keep" && name != "quiet" && name != "inventory" && name != "cluster" {
				return generators.Scenario{}, fmt.Errorf("--scenario replays a scenario exactly; --%s cannot change it", name)
			}
		}
		s, err := generators.Load(file)
		if err == nil && set["cluster"] && rf.cluster != s.Cluster.Provider {
			err = fmt.Errorf("--scenario replays a scenario exactly; --cluster %s cannot change its provider %s", rf.cluster, s.Cluster.Provider)
		}
		return s, err
	}
	if rf.workload == "random" {
		kinds, err := drawableKinds(ctx, rf.cluster, rf.inventory)
		if err != nil {
			return generators.Scenario{}, err
		}
		sp := generators.LongSpace()
		sp.Provider, sp.Kinds = rf.cluster, kinds
		s := generators.RandomIn(sp, rf.seed)
		if set["time-limit"] {
			s.TimeLimit = generators.Duration(rf.timeLimit)
			s.Nemesis = fitFaults(s.Nemesis, s.TimeLimit)
		}
		if err := useClient(&s, rf, set); err != nil {
			return s, err
		}
		return s, s.Validate()
	}
	s, err := fromFlags(rf, set)
	if err != nil {
		return s, err
	}
	if err := useClient(&s, rf, set); err != nil {
		return s, err
	}
	return s, s.Validate()
}

// useClient applies --client, when given, to s.
func useClient(s *generators.Scenario, rf runFlags, set map[string]bool) error {
	if !set["client"] {
		return nil
	}
	name, version, err := generators.ParseClient(rf.client)
	if err != nil {
		return err
	}
	generators.UseClient(s, name, version)
	return nil
}

// drawableKinds is the kinds a random draw on cluster takes on this
// machine (runner.DrawableKinds), on an external cluster what its hosts
// offer (externalKinds, given its inventory), or generators.KindsFor where
// no provider of that name is registered (the run then names it).
func drawableKinds(ctx context.Context, cluster, inventory string) ([]string, error) {
	if cluster == "external" && inventory != "" {
		return externalKinds(ctx, inventory)
	}
	prov, err := runner.DefaultProviders().New(cluster)
	if err != nil {
		return generators.KindsFor(cluster), nil
	}
	return runner.DrawableKinds(prov), nil
}

// fitFaults drops the faults that no longer fit a shortened run and cuts the
// last windows at its end.
func fitFaults(fs []generators.Fault, limit generators.Duration) []generators.Fault {
	var out []generators.Fault
	for _, f := range fs {
		if f.Start >= limit {
			continue
		}
		f.Duration = min(f.Duration, limit-f.Start)
		out = append(out, f)
	}
	return out
}

func fromFlags(rf runFlags, set map[string]bool) (generators.Scenario, error) {
	var acks model.Acks
	if err := acks.UnmarshalText([]byte(rf.acks)); err != nil {
		return generators.Scenario{}, fmt.Errorf("--acks: %w", err)
	}
	idem := rf.idempotence
	if acks != model.AcksAll && !set["idempotence"] {
		idem = false // Kafka refuses idempotence without acks=all
	}
	s := generators.Scenario{
		Name: "run-" + rf.workload, Seed: rf.seed,
		Cluster: generators.Cluster{Provider: rf.cluster, Brokers: rf.brokers},
		Keys:    generators.SequentialKeys(rf.keys, "in", ""),
		Topic:   model.TopicConfig{ReplicationFactor: rf.replicationFactor, MinInsyncReplicas: min(2, rf.replicationFactor)},
		Producer: generators.Producer{ProducerConfig: model.ProducerConfig{Acks: acks, Retries: rf.retries,
			EnableIdempotence: idem, MaxInFlight: rf.maxInFlight},
			DeliveryTimeout: generators.Duration(20 * time.Second), RequestTimeout: generators.Duration(2 * time.Second)},
		Consumer: generators.Consumer{ConsumerConfig: model.ConsumerConfig{IsolationLevel: model.Isolation(rf.isolation),
			CommitStrategy: model.CommitStrategy(rf.commit)}, SessionTimeout: generators.Duration(time.Second),
			AutoCommitInterval: generators.Duration(100 * time.Millisecond), MaxPollInterval: generators.Duration(rf.maxPollInterval)},
		Workload: generators.Workload{Producers: rf.producers, Lanes: 4, Mode: generators.ModeGroup, Group: "kafkachaos",
			Mix: generators.Mix{Send: 1, Poll: 1}, Rate: rf.rate, PollBatch: 50, ClientProcesses: rf.clientProcesses},
		TimeLimit: generators.Duration(rf.timeLimit),
	}
	switch rf.workload {
	case "produce":
		s.Workload.Mode = generators.ModeAssign
	case "consume":
		s.Workload.Consumers = rf.consumers
	default:
		return s, fmt.Errorf("--workload %q: want produce, consume or random", rf.workload)
	}
	if rf.transactional {
		// the copy keeps the run's rate and its consumers, which watch
		s = s.TransactionalCopy(rf.keys, 0.1, s.Workload.Rate)
	}
	faults, err := faultsOf(rf, s.TimeLimit)
	s.Nemesis = faults
	return s, err
}

func faultsOf(rf runFlags, limit generators.Duration) ([]generators.Fault, error) {
	if rf.nemesis == "" {
		return nil, nil
	}
	var out []generators.Fault
	var errs []error
	fl := generators.FaultFlags{Probability: rf.faultProbability, Point: rf.crashPoint}
	for _, name := range strings.Split(rf.nemesis, ",") {
		name = strings.TrimSpace(name)
		k, ok := generators.LookupKind(name)
		if !ok {
			errs = append(errs, fmt.Errorf("--nemesis: unknown fault %q (want %s)", name, strings.Join(generators.Kinds(), ", ")))
			k.Name = name
		}
		// each kind fills in the parameters it reads; --fault-probability
		// is the request faults' alone, so the kinds that read none refuse
		// none (reassign, add-broker, remove-voter)
		out = append(out, k.Defaults(limit, fl))
	}
	return out, errors.Join(errs...)
}
