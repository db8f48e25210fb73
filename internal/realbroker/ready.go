package realbroker

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafkachaos/kafkachaos/cluster"
)

// ProbeTopic is created by the readiness check; scenario topics never look
// internal, so it cannot clash with them.
const ProbeTopic = "__kafkachaos_probe"

// WaitReady returns once the cluster really serves: metadata lists all
// brokers, and a record produced with acks=all to a probe topic replicated
// on up to three brokers is fetched back. exited is asked every round; an
// error from it (a node that died) fails the wait at once. tag marks the
// probe record as this run's.
func (a *Admin) WaitReady(ctx context.Context, limit time.Duration, brokers int, tag string, exited func() error) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var last error
	step := "metadata"
	for ctx.Err() == nil {
		if err := exited(); err != nil {
			return err
		}
		at, err := a.readyStep(ctx, brokers, tag)
		if err == nil {
			return nil
		}
		// an attempt the deadline cut short tells less than the one before
		if last == nil || ctx.Err() == nil {
			step, last = at, err
		}
		select {
		case <-ctx.Done():
		case <-time.After(300 * time.Millisecond):
		}
	}
	return fmt.Errorf("cluster not serving after %s (stuck at %s: %v)", limit, step, last)
}

// readyStep takes the cluster through the steps of readiness: every broker
// registered, the probe topic created, a record produced and fetched. It
// returns the step it stopped at and why.
func (a *Admin) readyStep(ctx context.Context, brokers int, tag string) (string, error) {
	if err := a.brokersRegistered(ctx, brokers); err != nil {
		return "metadata", err
	}
	probe := cluster.TopicSpec{Name: ProbeTopic, Partitions: 1, ReplicationFactor: int16(min(3, brokers))}
	if err := a.CreateTopic(ctx, probe, true); err != nil {
		return "probe topic", err
	}
	if err := a.roundTrip(ctx, tag); err != nil {
		return "produce and fetch", err
	}
	return "", nil
}

func (a *Admin) brokersRegistered(ctx context.Context, want int) error {
	resp, err := a.Metadata(ctx, nil)
	if err != nil {
		return err
	}
	if len(resp.Brokers) != want {
		return fmt.Errorf("metadata lists %d of %d brokers", len(resp.Brokers), want)
	}
	return nil
}

// roundTrip produces one record to the probe topic and fetches it back.
func (a *Admin) roundTrip(ctx context.Context, tag string) error {
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	value := []byte(tag + "-" + strconv.FormatInt(time.Now().UnixNano(), 10))
	rec, err := a.cl.ProduceSync(rctx, &kgo.Record{Topic: ProbeTopic, Value: value}).First()
	if err != nil {
		return fmt.Errorf("probe produce: %w", err)
	}
	c, err := kgo.NewClient(kgo.SeedBrokers(a.seeds...), kgo.ConsumePartitions(
		map[string]map[int32]kgo.Offset{ProbeTopic: {rec.Partition: kgo.NewOffset().At(rec.Offset)}}))
	if err != nil {
		return err
	}
	defer c.Close()
	for rctx.Err() == nil {
		fs := c.PollFetches(rctx)
		for _, fe := range fs.Errors() {
			if !errors.Is(fe.Err, context.DeadlineExceeded) {
				return fmt.Errorf("probe fetch: %w", fe.Err)
			}
		}
		for _, r := range fs.Records() {
			if r.Offset == rec.Offset && string(r.Value) == string(value) {
				return nil
			}
		}
	}
	return fmt.Errorf("probe fetch: record at offset %d not read back", rec.Offset)
}

// ErrNotListening is WaitListening's error when its limit passed.
var ErrNotListening = errors.New("not listening")

// tailed adds a node's log tail to a wait for its listener that timed out:
// why a JVM never listened is in its log.
func tailed(err error, tail func() string) error {
	if errors.Is(err, ErrNotListening) {
		return fmt.Errorf("%w; log tail:\n%s", err, tail())
	}
	return err
}

// WaitListening waits until addr accepts a TCP connection, as a restarted
// broker's listener does long before it serves. exited is asked between
// attempts; its error (the node died again) ends the wait at once.
func WaitListening(ctx context.Context, addr string, limit time.Duration, exited func() error) error {
	deadline := time.Now().Add(limit)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		if err := exited(); err != nil {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w on %s after %s: %w", ErrNotListening, addr, limit, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}
