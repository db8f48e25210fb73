package realbroker

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ClockTopic is the topic the wall-clock probe writes to: one partition
// per broker, held by that broker alone, with message.timestamp.type
// LogAppendTime, so that a produce's answer carries the broker's wall clock
// (what Kafka stamps records, rolls and deletes segments and expires
// transactions by). The first probe creates it: runs without clock faults
// never have it.
const ClockTopic = "kafkachaos-clock"

// ClockProbed says how ProbeClock reads a broker's clock, for the nemesis
// ops.
const ClockProbed = "LogAppendTime of a record produced to the broker's own partition of " + ClockTopic

// ProbeClock measures node id's wall clock against this process's: skew is
// the LogAppendTime the broker gave one record minus the middle of the
// produce's round trip, good to rtt/2 plus the broker's millisecond.
func (c *Cluster) ProbeClock(ctx context.Context, id int32) (skew, rtt time.Duration, err error) {
	if err := c.started(); err != nil {
		return 0, 0, err
	}
	topicID, partition, err := c.admin.clockPartition(ctx, id)
	if err != nil {
		return 0, 0, c.wrap(fmt.Errorf("clock probe of node %d: %w", id, err))
	}
	// A partition just made is in the controller's metadata before the
	// node has loaded it; until then the node answers that it does not
	// host it.
	loaded := time.Now().Add(clockLoad)
	for {
		sent := time.Now()
		appended, err := c.admin.produceOne(ctx, id, topicID, partition, sent)
		rtt = time.Since(sent)
		if err == nil {
			return time.UnixMilli(appended).Sub(sent.Add(rtt / 2)), rtt, nil
		}
		if !notLoadedYet(err) || time.Now().After(loaded) || ctx.Err() != nil {
			return 0, rtt, c.wrap(fmt.Errorf("clock probe of node %d: %w", id, err))
		}
		select {
		case <-ctx.Done():
		case <-time.After(clockPoll):
		}
	}
}

// notLoadedYet says err is a node's answer about a partition it has not
// loaded from the metadata yet.
func notLoadedYet(err error) bool {
	return errors.Is(err, kerr.UnknownTopicID) || errors.Is(err, kerr.UnknownTopicOrPartition) ||
		errors.Is(err, kerr.NotLeaderForPartition)
}

// clockPartition is the topic id of ClockTopic and the partition node id
// holds alone, creating the topic, or the partition, when there is none
// yet. Only node id must be able to take a replica: a probe of one node
// does not wait for the others, which a fault may have fenced.
//
// The broker that answers the metadata learns of a partition just made
// after the controller does, so the partition is looked for until
// clockLoad has passed, and made again only when the metadata has moved
// past the count it was made at without it: another probe's partition took
// its place.
func (a *Admin) clockPartition(ctx context.Context, id int32) ([16]byte, int32, error) {
	deadline := time.Now().Add(clockLoad)
	madeAt := -1 // partitions the metadata showed when ours was made
	for {
		resp, err := a.Metadata(ctx, []string{ClockTopic})
		if err != nil {
			return [16]byte{}, 0, err
		}
		topicID, p, n, ok := clockPartitionOf(resp, id)
		if ok {
			return topicID, p, nil
		}
		if n > madeAt {
			if err := a.makeClockPartition(ctx, id, n); err != nil {
				return [16]byte{}, 0, err
			}
			madeAt = n
			continue
		}
		if time.Now().After(deadline) {
			return [16]byte{}, 0, fmt.Errorf("%s: node %d's partition made, but not in the metadata after %s", ClockTopic, id, clockLoad)
		}
		select {
		case <-ctx.Done():
			return [16]byte{}, 0, ctx.Err()
		case <-time.After(clockPoll):
		}
	}
}

// clockPartitionOf finds in resp the partition of ClockTopic that node id
// holds alone; n is how many partitions the topic has (0 when it has none).
func clockPartitionOf(resp *kmsg.MetadataResponse, id int32) (topicID [16]byte, p int32, n int, ok bool) {
	if len(resp.Topics) != 1 || resp.Topics[0].ErrorCode != 0 {
		return topicID, 0, 0, false
	}
	t := resp.Topics[0]
	for _, tp := range t.Partitions {
		if len(tp.Replicas) == 1 && tp.Replicas[0] == id {
			return t.TopicID, tp.Partition, len(t.Partitions), true
		}
	}
	return topicID, 0, len(t.Partitions), false
}

// makeClockPartition creates ClockTopic on node id when it has no
// partitions, or else adds node id's partition to its n.
func (a *Admin) makeClockPartition(ctx context.Context, id int32, n int) error {
	if n == 0 {
		return a.createClockTopic(ctx, id)
	}
	return a.addClockPartition(ctx, id, int32(n))
}

// createClockTopic creates ClockTopic with one partition, on node id only;
// one that exists already is fine.
func (a *Admin) createClockTopic(ctx context.Context, id int32) error {
	req := kmsg.NewPtrCreateTopicsRequest()
	req.TimeoutMillis = 10000
	rt := kmsg.NewCreateTopicsRequestTopic()
	rt.Topic, rt.NumPartitions, rt.ReplicationFactor = ClockTopic, -1, -1
	ra := kmsg.NewCreateTopicsRequestTopicReplicaAssignment()
	ra.Partition, ra.Replicas = 0, []int32{id}
	rt.ReplicaAssignment = append(rt.ReplicaAssignment, ra)
	cfg := kmsg.NewCreateTopicsRequestTopicConfig()
	cfg.Name, cfg.Value = "message.timestamp.type", kmsg.StringPtr("LogAppendTime")
	rt.Configs = append(rt.Configs, cfg)
	req.Topics = append(req.Topics, rt)
	rctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	resp, err := req.RequestWith(rctx, a.cl)
	if err != nil {
		return fmt.Errorf("creating %s: %w", ClockTopic, err)
	}
	for _, t := range resp.Topics {
		if err := kerr.ErrorForCode(t.ErrorCode); err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
			return fmt.Errorf("creating %s: %w", ClockTopic, err)
		}
	}
	return nil
}

// addClockPartition adds to ClockTopic, which has n partitions, one on
// node id only; a count another probe raised meanwhile is fine (the
// caller makes it again when the metadata shows the other's).
func (a *Admin) addClockPartition(ctx context.Context, id, n int32) error {
	req := kmsg.NewPtrCreatePartitionsRequest()
	req.TimeoutMillis = 10000
	rt := kmsg.NewCreatePartitionsRequestTopic()
	rt.Topic, rt.Count = ClockTopic, n+1
	ra := kmsg.NewCreatePartitionsRequestTopicAssignment()
	ra.Replicas = []int32{id}
	rt.Assignment = append(rt.Assignment, ra)
	req.Topics = append(req.Topics, rt)
	rctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	resp, err := req.RequestWith(rctx, a.cl)
	if err != nil {
		return fmt.Errorf("adding node %d's partition to %s: %w", id, ClockTopic, err)
	}
	for _, t := range resp.Topics {
		if err := kerr.ErrorForCode(t.ErrorCode); err != nil && !errors.Is(err, kerr.InvalidPartitions) {
			return fmt.Errorf("adding node %d's partition to %s: %w", id, ClockTopic, err)
		}
	}
	return nil
}

// produceOne writes one record to the partition straight to node id (its
// only replica) and returns the LogAppendTime the broker answered, in ms.
// The topic is named both ways, by name and by id: the request's version
// (Kafka 4.1's v13 takes ids) is negotiated with the broker.
func (a *Admin) produceOne(ctx context.Context, id int32, topicID [16]byte, partition int32, now time.Time) (int64, error) {
	req := kmsg.NewPtrProduceRequest()
	req.Acks, req.TimeoutMillis = 1, 5000
	rt := kmsg.NewProduceRequestTopic()
	rt.Topic, rt.TopicID = ClockTopic, topicID
	rp := kmsg.NewProduceRequestTopicPartition()
	rp.Partition, rp.Records = partition, oneRecordBatch(now.UnixMilli())
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	kresp, err := a.cl.Broker(int(id)).Request(rctx, req)
	if err != nil {
		return 0, err
	}
	resp := kresp.(*kmsg.ProduceResponse)
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
				return 0, err
			}
			if p.LogAppendTime < 0 {
				return 0, fmt.Errorf("the answer has no LogAppendTime (is %s's message.timestamp.type LogAppendTime?)", ClockTopic)
			}
			return p.LogAppendTime, nil
		}
	}
	return 0, errors.New("empty produce response")
}

// oneRecordBatch is a v2 record batch of one record stamped nowMs, without
// a producer id: the wire form a produce request carries.
func oneRecordBatch(nowMs int64) []byte {
	rec := kmsg.Record{Value: []byte("clock probe")}
	rec.Length = int32(len(rec.AppendTo(nil)) - 1) // everything after the varint length, which is 1 byte while 0
	b := kmsg.RecordBatch{PartitionLeaderEpoch: -1, Magic: 2, FirstTimestamp: nowMs, MaxTimestamp: nowMs,
		ProducerID: -1, ProducerEpoch: -1, FirstSequence: -1, NumRecords: 1, Records: rec.AppendTo(nil)}
	raw := b.AppendTo(nil)
	binary.BigEndian.PutUint32(raw[8:], uint32(len(raw)-12))                                          // after FirstOffset and Length
	binary.BigEndian.PutUint32(raw[17:], crc32.Checksum(raw[21:], crc32.MakeTable(crc32.Castagnoli))) // from Attributes on
	return raw
}

// Clock verification bounds: a provider's clock control takes effect
// within a second (libfaketime rereads its file once a second), a probe is
// good to half its round trip, and the JVM stamps whole milliseconds. A
// node loads a partition made for a probe within clockLoad.
const (
	ClockSettle    = 10 * time.Second
	clockTolerance = 250 * time.Millisecond
	clockPoll      = 200 * time.Millisecond
	clockLoad      = 10 * time.Second
)

// AwaitClock probes node id until its clock reads offset from this
// process's (within half the probe's round trip and clockTolerance), for
// at most ClockSettle; it returns the last reading, and an error naming it
// when the clock never got there. The node's partition of ClockTopic is
// made first, outside ClockSettle: on a busy cluster making it can take
// longer than a clock takes to settle.
func (c *Cluster) AwaitClock(ctx context.Context, id int32, offset time.Duration) (skew, rtt time.Duration, err error) {
	if err := c.started(); err != nil {
		return 0, 0, err
	}
	if _, _, err := c.admin.clockPartition(ctx, id); err != nil {
		return 0, 0, c.wrap(fmt.Errorf("clock probe of node %d: %w", id, err))
	}
	ctx, cancel := context.WithTimeout(ctx, ClockSettle)
	defer cancel()
	for {
		skew, rtt, err = c.ProbeClock(ctx, id)
		if err == nil && (skew-offset).Abs() <= rtt/2+clockTolerance {
			return skew, rtt, nil
		}
		select {
		case <-ctx.Done():
			if err != nil {
				return skew, rtt, fmt.Errorf("node %d's clock not seen at %+v within %v: %w", id, offset, ClockSettle, err)
			}
			return skew, rtt, c.wrap(fmt.Errorf("node %d's clock reads %+v from ours (probe rtt %v), not %+v, after %v",
				id, skew, rtt, offset, ClockSettle))
		case <-time.After(clockPoll):
		}
	}
}
