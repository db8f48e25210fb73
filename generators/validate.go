package generators

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/kafkachaos/kafkachaos/model"
)

// FieldError names the scenario field that is wrong and why.
type FieldError struct {
	Field string // JSON path, e.g. "nemesis[2].start"
	Msg   string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

func bad(field, format string, args ...any) error {
	return &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// Validate reports every field no run could honour, joined; nil when s can
// run. Configurations Kafka would reject (model's Validate) are errors too:
// no guarantee can be expected of a client that cannot start.
func (s *Scenario) Validate() error {
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	if s.Name == "" {
		add(bad("name", "is empty"))
	}
	if s.TimeLimit <= 0 {
		add(bad("time-limit", "%s, want > 0", s.TimeLimit))
	}
	add(s.Cluster.validate())
	add(s.Keys.validate())
	add(wrap("topic", s.Topic.Validate()))
	if s.Cluster.Brokers > 0 && s.Topic.ReplicationFactor > s.Cluster.Brokers {
		add(bad("topic.replication.factor", "%d exceeds %d brokers", s.Topic.ReplicationFactor, s.Cluster.Brokers))
	}
	add(wrap("producer", s.Producer.ProducerConfig.Validate()))
	add(wrap("consumer", s.Consumer.ConsumerConfig.Validate()))
	add(s.Consumer.validateMaxPoll())
	add(s.validateGroupProtocol())
	add(s.validateQuorum())
	add(s.Workload.validate(s))
	errs = append(errs, s.validateClients()...)
	for i, f := range s.Nemesis {
		add(f.validate(fmt.Sprintf("nemesis[%d]", i), s))
	}
	if len(errs) > 0 {
		// only the faults of an otherwise sound scenario can be judged
		// against its workload, brokers, time limit and other faults
		return errors.Join(errs...)
	}
	for i := range s.Nemesis {
		add(Available(*s, i))
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	// windows that cannot coexist, once each can take effect alone
	return errors.Join(clashes(*s, false)...)
}

func wrap(field string, err error) error {
	if err == nil {
		return nil
	}
	return &FieldError{Field: field, Msg: err.Error()}
}

func (c Cluster) validate() error {
	switch {
	case c.Provider == "":
		return bad("cluster.provider", "is empty (want embedded, local, docker or external)")
	case c.Brokers < 1:
		return bad("cluster.brokers", "%d, want >= 1", c.Brokers)
	}
	return c.validateFeatures()
}

// validateNodes checks a fault's nodes against the ids the provider gives
// its brokers; where those are unknown, only that they are ids at all.
func (c Cluster) validateNodes(field string, nodes []int32) error {
	first, last, known := nodeIDs(c.Provider, c.Brokers)
	for i, n := range nodes {
		f := fmt.Sprintf("%s.params.nodes[%d]", field, i)
		switch {
		case n < 0:
			return bad(f, "node %d: broker ids are not negative", n)
		case known && (n < first || n > last):
			return bad(f, "node %d is not one of the %d brokers (%s numbers them %d..%d)", n, c.Brokers, c.Provider, first, last)
		}
	}
	return nil
}

func (k Keys) validate() error {
	switch {
	case k.Count < 1:
		return bad("keys.count", "%d, want >= 1", k.Count)
	case k.Topic == "":
		return bad("keys.topic", "is empty")
	case k.OutputTopic == k.Topic:
		return bad("keys.output-topic", "%q is the input topic too", k.OutputTopic)
	}
	want := k.derived()
	if len(k.Map) != len(want) {
		return bad("keys.map", "has %d keys, want %d (count, plus as many outputs when there is an output topic)", len(k.Map), len(want))
	}
	seen := make(map[TopicPartition]string, len(k.Map))
	for name, tp := range k.Map {
		if _, err := strconv.ParseInt(name, 10, 64); err != nil {
			return bad("keys.map."+name, "key is not an integer")
		}
		if other, dup := seen[tp]; dup {
			return bad("keys.map."+name, "%s/%d is also key %s's: one partition per key", tp.Topic, tp.Partition, other)
		}
		seen[tp] = name
		if _, ok := want[name]; !ok {
			return bad("keys.map."+name, "is not one of the keys count and output-topic imply")
		}
	}
	return nil
}

// derived is the key map count and the topics imply.
func (k Keys) derived() map[string]TopicPartition {
	m := make(map[string]TopicPartition, 2*k.Count)
	for i := range k.Count {
		m[strconv.Itoa(i)] = TopicPartition{k.Topic, int32(i)}
		if k.OutputTopic != "" {
			m[strconv.Itoa(k.Count+i)] = TopicPartition{k.OutputTopic, int32(i)}
		}
	}
	return m
}

// SequentialKeys is the usual key layout: key i on partition i of topic,
// and with an output topic key count+i on its partition i.
func SequentialKeys(count int, topic, outputTopic string) Keys {
	k := Keys{Count: count, Topic: topic, OutputTopic: outputTopic}
	k.Map = k.derived()
	return k
}

func (w Workload) validate(s *Scenario) error {
	var errs []error
	add := func(field, format string, args ...any) {
		errs = append(errs, bad("workload."+field, format, args...))
	}
	if w.Producers < 0 || w.Consumers < 0 || w.Copiers < 0 {
		add("producers", "producers=%d consumers=%d copiers=%d: none may be negative", w.Producers, w.Consumers, w.Copiers)
	}
	if w.Producers == 0 && w.Copiers > 0 {
		add("copiers", "copiers read what producers write: want producers >= 1")
	}
	if w.Producers > 0 && w.Lanes < 1 {
		add("lanes", "%d, want >= 1", w.Lanes)
	}
	if w.Mode != ModeGroup && w.Mode != ModeAssign {
		add("mode", "%q, want group or assign", w.Mode)
	}
	if (w.Mode == ModeGroup || w.Copiers > 0) && w.Group == "" {
		add("group", "is empty, and group consumers and copiers need one")
	}
	if w.Copiers > 0 {
		errs = append(errs, w.validateCopiers(s)...)
	}
	errs = append(errs, w.validateTxnQueues(s)...)
	if w.Mix.Send < 0 || w.Mix.Poll < 0 || w.Mix.Txn < 0 || w.Mix.Send+w.Mix.Poll+w.Mix.Txn == 0 {
		add("mix", "%+v: weights must be >= 0 and not all 0", w.Mix)
	}
	if w.Rate < 0 || w.MaxValues < 0 {
		add("rate", "rate=%g max-values=%d: must not be negative", w.Rate, w.MaxValues)
	}
	if w.PollBatch < 1 {
		add("poll-batch", "%d, want >= 1", w.PollBatch)
	}
	if w.Copiers > 0 && w.TxnSize < 1 {
		add("txn-size", "%d, want >= 1 with copiers", w.TxnSize)
	}
	if w.AbortRatio < 0 || w.AbortRatio > 1 {
		add("abort-ratio", "%g, want within [0, 1]", w.AbortRatio)
	}
	if err := w.validateProcesses(s); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// validateCopiers checks what the copiers' mode needs: an output topic; a
// transactional.id for transactions; and for at-least-once copiers the
// consumer commit-strategy that says what they do with their offsets
// (commit after their sends), which the expected guarantee is derived from.
// Transactional copiers take any commit-strategy, as they always have: one
// other than transactional only weakens the expectation.
func (w Workload) validateCopiers(s *Scenario) []error {
	var errs []error
	if s.Keys.OutputTopic == "" {
		errs = append(errs, bad("workload.copiers", "copiers need keys.output-topic"))
	}
	switch w.CopyMode() {
	case CopyTransactional:
		if !s.Producer.Transactional() {
			errs = append(errs, bad("workload.copiers", "transactional copiers need a producer transactional.id"))
		}
	case CopyAtLeastOnce:
		if s.Consumer.CommitStrategy != model.CommitAfterProcessing {
			errs = append(errs, bad("workload.copier-mode", "at-least-once copiers commit their offsets after their sends: want consumer commit-strategy %s, not %q",
				model.CommitAfterProcessing, s.Consumer.CommitStrategy))
		}
	default:
		errs = append(errs, bad("workload.copier-mode", "%q, want %s or %s", w.CopierMode, CopyTransactional, CopyAtLeastOnce))
	}
	if w.CopierAssign && w.Copiers > 1 {
		errs = append(errs, bad("workload.copier-assign", "each copier assigns every input key, so %d copiers would each copy every record: want copiers = 1", w.Copiers))
	}
	return errs
}

func (f Fault) validate(field string, s *Scenario) error {
	k, ok := LookupKind(f.Kind)
	switch {
	case !ok:
		return bad(field+".kind", "%q is not one of %v", f.Kind, Kinds())
	case f.Start < 0 || f.Duration < 0:
		return bad(field+".start", "start %s, duration %s: must not be negative", f.Start, f.Duration)
	case f.End() > s.TimeLimit:
		return bad(field+".duration", "window ends at %s, after the time limit %s", f.End(), s.TimeLimit)
	case !k.Instant && f.Duration == 0:
		return bad(field+".duration", "is 0: a %s fault needs a window", f.Kind)
	case f.Params.Probability < 0 || f.Params.Probability > 1:
		return bad(field+".params.probability", "%g, want within [0, 1]", f.Params.Probability)
	case f.Params.Every < 0 || f.Params.Delay < 0:
		return bad(field+".params", "every %s, delay %s: must not be negative", f.Params.Every, f.Params.Delay)
	}
	if err := s.Cluster.validateNodes(field, f.Params.Nodes); err != nil {
		return err
	}
	switch f.Params.Point {
	case "", CrashAnywhere, CrashAfterCommit, CrashBeforeCommit:
	default:
		return bad(field+".params.point", "%q, want anywhere, after-commit or before-commit", f.Params.Point)
	}
	if k.check != nil {
		if err := k.check(f, field, s); err != nil {
			return err
		}
	}
	if err := checkOwned(k, f, field); err != nil {
		return err
	}
	return checkTarget(k, f, field, s)
}

// checkOwned refuses a parameter that other kinds alone read (Kind.Owns).
func checkOwned(k Kind, f Fault, field string) error {
	for _, name := range paramsSet(f.Params) {
		var readers []string
		for _, o := range Registry() { // in the registry's order, for the message
			if slices.Contains(o.Owns, name) {
				readers = append(readers, o.Name)
			}
		}
		if len(readers) > 0 && !slices.Contains(k.Owns, name) {
			verb := "reads"
			if len(readers) > 1 {
				verb = "read"
			}
			return bad(field+".params."+name, "only %s %s it (kind %s)", strings.Join(readers, " and "), verb, f.Kind)
		}
	}
	return nil
}

// paramsSet is the parameters p sets, by JSON name.
func paramsSet(p FaultParams) []string {
	v, t := reflect.ValueOf(p), reflect.TypeOf(p)
	var out []string
	for i := range t.NumField() {
		if !v.Field(i).IsZero() {
			out = append(out, strings.Split(t.Field(i).Tag.Get("json"), ",")[0])
		}
	}
	return out
}
