package sim

import (
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// epochStart is where a leader epoch of a partition began in its log.
type epochStart struct {
	epoch int32
	start int64
}

// noteEpochs records, after the harness moved leaders, each partition's
// leader, epoch and where that epoch begins (the high watermark now: the
// moves happen at quiet points, and a client's next request is at least
// its write latency away, so nothing was written between the moves).
func (c *cluster) noteEpochs() {
	type seen struct {
		leader, epoch int32
		hwm           int64
	}
	now := make([]seen, c.keys*len(c.topics))
	for i := range now {
		if pi := c.fake.PartitionInfo(c.topics[i/c.keys], int32(i%c.keys)); pi != nil {
			now[i] = seen{pi.Leader, pi.Epoch, pi.HighWatermark}
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.epochs == nil {
		c.epochs, c.leaders = make([][]epochStart, len(now)), make([]int32, len(now))
	}
	for p, s := range now {
		c.leaders[p] = s.leader
		if es := c.epochs[p]; len(es) == 0 || es[len(es)-1].epoch != s.epoch {
			c.epochs[p] = append(es, epochStart{s.epoch, s.hwm})
		}
	}
}

// answerEpochs answers an OffsetForLeaderEpoch asking the leader about
// earlier epochs, which kfake answers with the log start offset once the
// epoch moved before a new batch was written: franz-go reads that as
// truncation and resets to its reset offset, re-reading the whole log
// though nothing was lost. Kafka answers the offset where the next epoch
// began, as this does, and answers a stale or unknown current epoch and a
// request to a follower with Kafka's errors. A request about the current
// epoch or another topic is left to kfake (whole: a response cannot be
// half kfake's).
func (c *cluster) answerEpochs(req *kmsg.OffsetForLeaderEpochRequest, node int32) (kmsg.Response, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	resp := req.ResponseKind().(*kmsg.OffsetForLeaderEpochResponse)
	for _, t := range req.Topics {
		rt := kmsg.NewOffsetForLeaderEpochResponseTopic()
		rt.Topic = t.Topic
		for _, rp := range t.Partitions {
			sp, ok := c.epochEnd(t.Topic, rp, node)
			if !ok {
				return nil, false
			}
			rt.Partitions = append(rt.Partitions, sp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp, true
}

func (c *cluster) epochEnd(topic string, rp kmsg.OffsetForLeaderEpochRequestTopicPartition, node int32) (kmsg.OffsetForLeaderEpochResponseTopicPartition, bool) {
	sp := kmsg.NewOffsetForLeaderEpochResponseTopicPartition()
	sp.Partition = rp.Partition
	ti := slices.Index(c.topics, topic)
	if ti < 0 || rp.Partition < 0 || int(rp.Partition) >= c.keys {
		return sp, false
	}
	p := ti*c.keys + int(rp.Partition)
	es := c.epochs[p]
	cur := es[len(es)-1].epoch
	switch {
	case c.leaders[p] != node:
		sp.ErrorCode = kerr.NotLeaderForPartition.Code
		return sp, true
	case rp.CurrentLeaderEpoch != -1 && rp.CurrentLeaderEpoch < cur:
		sp.ErrorCode = kerr.FencedLeaderEpoch.Code
		return sp, true
	case rp.CurrentLeaderEpoch > cur:
		sp.ErrorCode = kerr.UnknownLeaderEpoch.Code
		return sp, true
	case rp.LeaderEpoch >= cur || rp.LeaderEpoch < es[0].epoch:
		return sp, false // the log end, or before the harness's first move: kfake's to answer
	}
	for i, e := range es {
		if e.epoch > rp.LeaderEpoch {
			sp.LeaderEpoch, sp.EndOffset = es[i-1].epoch, e.start
			return sp, true
		}
	}
	return sp, false
}
