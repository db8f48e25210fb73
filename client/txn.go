package client

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/kafkachaos/kafkachaos/histories"
)

// CopyMode is how a Copier makes its consume and produce hops one.
type CopyMode string

const (
	// CopyTransactional is Kafka's exactly-once recipe: a read_committed
	// consumer, a transactional producer, and the consumed offsets sent to
	// the transaction (sendOffsetsToTransaction), so records out and offsets
	// in commit or abort together. Each transaction is one txn op.
	CopyTransactional CopyMode = "transactional"
	// CopyAtLeastOnce is the negative control: a plain producer with
	// retries, and the consumer committing its offsets itself after the
	// sends. A crash between the two re-copies records. Each cycle is a
	// poll op, one send op per record and a commit op.
	CopyAtLeastOnce CopyMode = "at-least-once"
)

// CopierOptions configures a Copier.
//
// The transform is fixed so that the history alone proves exactly-once: an
// input record (key k, offset o, value v) is copied to Pairs[k] as
// histories.CopyValue(v, o), the value that names o and v. Each output key
// has exactly one input key, so its values stay unique: a record copied
// twice shows as one value at two offsets of the output key (duplicate), a
// record never copied as lost-delivery of the group, and a committed copy
// never read as unseen or lost-write; an input value an at-least-once
// producer wrote twice is two records, copied to two values. Transactions
// aborted on purpose write histories.PoisonValue(o, attempt) instead, with
// attempt the index of their txn op's invoke: they must never be read, a
// read of one is G1a naming that very transaction, and a record aborted
// twice leaves two poisoned values, not one value at two offsets. Input
// values must therefore be in 0..histories.CopyStride-1; a record outside
// the scheme stops the copier.
type CopierOptions struct {
	Bootstrap string
	Keys      *KeyMap // every input and output key
	// Pairs maps each input key to its output key; output keys are
	// distinct and no key is both.
	Pairs map[histories.Key]histories.Key
	Group string // the consumer group; required
	// Subscribe joins the group by subscribing to the input keys' topics,
	// which must then hold no output key; otherwise the copier assigns the
	// input keys and resumes from the group's committed offsets.
	Subscribe bool
	Mode      CopyMode // "" means CopyTransactional
	// TransactionalID is required in CopyTransactional. A successor taking
	// over from a crashed copier uses the same id: its InitTransactions
	// fences the old producer and aborts its open transaction.
	TransactionalID string
	Producer        ProducerConfig // acks, retries, timeouts; the copier sets transactional.id and idempotence
	Consumer        ConsumerConfig // timeouts; the copier sets group, commit and isolation
	// AbortProbability is the chance that a transaction with records is
	// aborted on purpose.
	AbortProbability float64
	Seed             int64         // of the abort dice
	CallTimeout      time.Duration // per transactional call; 0 means 10s
	// RetryBudget bounds all attempts of one retried transactional call
	// (see retry); 0 means 6 CallTimeouts. Running out of it is
	// ErrRetriesExhausted.
	RetryBudget time.Duration
	Recorder    Recorder
	Process     int64
	Fencer      MemberFencer // makes a crash honest for the group, as for Consumer
	// Logs, when set, takes librdkafka's own log lines of both clients;
	// nil leaves them on stderr.
	Logs *Logs
}

// Copier is one consume-transform-produce process. Step runs one
// transaction (or one at-least-once cycle) at a time; Crash may be called
// from any goroutine.
type Copier struct {
	txnClient
	opts    CopierOptions
	outputs map[histories.Key]kafka.TopicPartition // by input key
	rng     *rand.Rand
}

// ErrAbortedOnPurpose is the error of a transaction a transactional
// worker aborted by design (AbortProbability).
var ErrAbortedOnPurpose = errors.New("transaction aborted on purpose")

// NewCopier creates the consumer and producer, initialises transactions
// (fencing any earlier copier with the same transactional.id) and records
// the assign or subscribe op.
func NewCopier(ctx context.Context, opts CopierOptions) (*Copier, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	in, outputs, err := opts.split()
	if err != nil {
		return nil, err
	}
	cc := opts.Consumer
	cc.Group, cc.Commit, cc.ReadCommitted = opts.Group, CommitNone, true
	c, err := NewConsumer(ConsumerOptions{Bootstrap: opts.Bootstrap, Config: cc, Keys: in,
		Recorder: opts.Recorder, Process: opts.Process, Fencer: opts.Fencer,
		Logs: opts.Logs, worker: opts.worker() + " consumer"})
	if err != nil {
		return nil, fmt.Errorf("copier: %w", err)
	}
	cp := &Copier{txnClient: txnClient{c: c, process: opts.Process, recorder: opts.Recorder, stopped: ErrCopierStopped,
		callTimeout: opts.CallTimeout, retryBudget: opts.RetryBudget},
		opts: opts, outputs: outputs, rng: rand.New(rand.NewSource(opts.Seed))}
	if cp.kp, err = cp.newProducer(); err != nil {
		c.Close()
		return nil, err
	}
	join := cp.assign
	if opts.Subscribe {
		join = c.Subscribe
	}
	if err := cp.open(func() error { return cp.initTransactions(ctx) }, join); err != nil {
		return nil, fmt.Errorf("copier: %w", err)
	}
	return cp, nil
}

// Validate refuses options no copier can run with, and fills in the
// default mode and timeouts.
func (o *CopierOptions) Validate() error {
	switch {
	case o.Keys == nil || o.Recorder == nil:
		return errors.New("copier: Keys and Recorder are required")
	case o.Group == "":
		return errors.New("copier: Group is required (offsets are committed to it)")
	case len(o.Pairs) == 0:
		return errors.New("copier: Pairs is empty")
	case o.AbortProbability < 0 || o.AbortProbability > 1:
		return fmt.Errorf("copier: AbortProbability = %v, want 0..1", o.AbortProbability)
	}
	switch o.Mode {
	case "":
		o.Mode = CopyTransactional
	case CopyTransactional, CopyAtLeastOnce:
	default:
		return fmt.Errorf("copier: Mode = %q, want %q or %q", o.Mode, CopyTransactional, CopyAtLeastOnce)
	}
	if o.Mode == CopyTransactional && o.TransactionalID == "" {
		return errors.New("copier: TransactionalID is required for transactional copying")
	}
	defaultTimeouts(&o.CallTimeout, &o.RetryBudget)
	return nil
}

// Inputs returns the key map of the input keys, checking Pairs against
// Keys as NewCopier does.
func (o *CopierOptions) Inputs() (*KeyMap, error) {
	in, _, err := o.split()
	return in, err
}

// split returns the key map of the input keys and the output
// topic-partition of each input key, checking Pairs against Keys.
func (o *CopierOptions) split() (*KeyMap, map[histories.Key]kafka.TopicPartition, error) {
	inMap := make(map[histories.Key]TopicPartition, len(o.Pairs))
	outputs := make(map[histories.Key]kafka.TopicPartition, len(o.Pairs))
	inTopics := map[string]bool{}
	seenOut := map[histories.Key]histories.Key{}
	for in, out := range o.Pairs {
		itp, ok1 := o.Keys.fwd[in]
		otp, ok2 := o.Keys.TP(out)
		switch {
		case !ok1:
			return nil, nil, fmt.Errorf("copier: pairs: input key %d is not in the key map", in)
		case !ok2:
			return nil, nil, fmt.Errorf("copier: pairs: output key %d (of input %d) is not in the key map", out, in)
		}
		if prev, dup := seenOut[out]; dup {
			return nil, nil, fmt.Errorf("copier: pairs: input keys %d and %d both copy to output key %d", prev, in, out)
		}
		seenOut[out] = in
		inMap[in], outputs[in] = itp, otp
		inTopics[itp.Topic] = true
	}
	for out := range seenOut {
		if _, isIn := o.Pairs[out]; isIn {
			return nil, nil, fmt.Errorf("copier: pairs: key %d is both an input and an output", out)
		}
		if tp := o.Keys.fwd[out]; o.Subscribe && inTopics[tp.Topic] {
			return nil, nil, fmt.Errorf("copier: pairs: subscribing to topic %q would consume output key %d", tp.Topic, out)
		}
	}
	in, err := NewKeyMap(inMap)
	return in, outputs, err
}

// newProducer creates the producer of the mode.
func (cp *Copier) newProducer() (*kafka.Producer, error) {
	pc := cp.opts.Producer
	pc.TransactionalID = ""
	if cp.opts.Mode == CopyTransactional {
		pc.TransactionalID, pc.Idempotence, pc.Acks = cp.opts.TransactionalID, true, "all"
	}
	kp, err := openProducer(cp.opts.Bootstrap, pc, cp.opts.Logs, cp.opts.worker()+" producer")
	if err != nil {
		return nil, fmt.Errorf("copier: %w", err)
	}
	return kp, nil
}

// initTransactions, when transactional, fences any earlier producer with
// the same transactional.id.
func (cp *Copier) initTransactions(ctx context.Context) error {
	if cp.opts.Mode != CopyTransactional {
		return nil
	}
	return cp.txnClient.initTransactions(ctx)
}

// assign takes the input keys at the group's committed offsets (the
// beginning where none): a copier resumes where the group left off. The
// offsets are looked up here, as rewind does, rather than left to
// librdkafka (OffsetStored), whose lookup runs after Assign returns: a
// failed lookup then fails the assign op instead of surfacing later.
func (cp *Copier) assign() error {
	c := cp.c
	keys := c.opts.Keys.Keys()
	inv := c.ops.Invoke(histories.FAssign, nil, keys)
	all := make([]kafka.TopicPartition, 0, len(keys))
	for _, k := range keys {
		tp, _ := c.opts.Keys.TP(k)
		all = append(all, tp)
	}
	tps, err := cp.committed(all)
	if err == nil {
		err = c.kc.Assign(tps)
	}
	c.ops.Complete(inv, completion(err), nil, err)
	return err
}

// worker names the copier in its clients' log lines.
func (o CopierOptions) worker() string { return "copier " + processList([]int64{o.Process}) }
