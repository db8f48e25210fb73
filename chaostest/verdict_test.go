package chaostest_test

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/kafkachaos/kafkachaos/chaostest"
)

// stuckCopier copies what arrives and commits it once written, except
// the values in drop, which it commits without writing; on each input
// partition it stops at its first value above last, as code too slow to
// have consumed the input's tail when the drain ends.
func stuckCopier(last int64, drop ...int64) chaostest.Service {
	return func(ctx context.Context, env chaostest.Env) error {
		c, p, err := clients(env)
		if err != nil {
			return err
		}
		defer c.Close()
		defer p.Close()
		stuck := map[int32]bool{}
		for ctx.Err() == nil {
			if err := stuckBatch(c, p, env, stuck, last, drop); err != nil {
				return err
			}
		}
		return nil
	}
}

// stuckBatch copies what arrives until a poll finds nothing, then commits
// it.
func stuckBatch(c *kafka.Consumer, p *kafka.Producer, env chaostest.Env, stuck map[int32]bool, last int64, drop []int64) error {
	stored := false
	for {
		m, err := c.ReadMessage(20 * time.Millisecond)
		if err != nil {
			break // a timeout: nothing came
		}
		v, err := strconv.ParseInt(string(m.Value), 10, 64)
		if err != nil {
			return err
		}
		if part := m.TopicPartition.Partition; stuck[part] || v > last {
			stuck[part] = true
			continue
		}
		if !slices.Contains(drop, v) {
			out := &kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &env.Output, Partition: m.TopicPartition.Partition}, Value: m.Value}
			if err := p.Produce(out, nil); err != nil {
				return err
			}
		}
		if _, err := c.StoreMessage(m); err != nil {
			return err
		}
		stored = true
	}
	if !stored {
		return nil
	}
	if n := p.Flush(5000); n > 0 {
		return errors.New("records still unwritten after 5s: nothing is committed")
	}
	_, err := c.Commit()
	return err
}

func seq(from, to int64) []int64 {
	var out []int64
	for v := from; v <= to; v++ {
		out = append(out, v)
	}
	return out
}

// Input the code had not consumed when the drain ended (its group had not
// committed past it) is not lost: it is named as not consumed in time, the
// guarantee is judged on the rest, and Check fails saying so. What the
// group committed past and the code never wrote is still lost.
func TestInputNotConsumedInTimeIsNotLoss(t *testing.T) {
	ft := &failTB{TB: t}
	v := chaostest.Check(ft, chaostest.ExactlyOnce, stuckCopier(40), small(t))
	if !v.Held || len(v.Lost) != 0 || !slices.Equal(values(v.Unconsumed), seq(41, 60)) {
		t.Errorf("slow code: held %v, lost %v, not consumed %v; want held, none lost, 41..60 not consumed", v.Held, values(v.Lost), values(v.Unconsumed))
	}
	if !strings.Contains(ft.errors, "20 input records not consumed in time") {
		t.Errorf("Check on slow code failed with %q, want it to say what was not consumed", ft.errors)
	}
	v, err := chaostest.Run(t.Context(), chaostest.AtLeastOnce, stuckCopier(40, 7, 28), small(t))
	if err != nil || v.Held || !slices.Equal(values(v.Lost), []int64{7, 28}) || !slices.Equal(values(v.Unconsumed), seq(41, 60)) {
		t.Errorf("slow code that drops 7 and 28: %v, %v; want 7 and 28 lost, 41..60 not consumed", v, err)
	}
}

// Input the cluster lost (here: deleted from the head of input partition 0
// before the code read it) is the cluster's loss, named apart, not the
// code's.
func TestInputTheClusterLostIsNotTheCodes(t *testing.T) {
	svc := func(ctx context.Context, env chaostest.Env) error {
		if env.Start == 0 {
			if err := truncateHead(ctx, env, 5); err != nil {
				return err
			}
		}
		return copier(same, 0)(ctx, env)
	}
	ft := &failTB{TB: t}
	v := chaostest.Check(ft, chaostest.ExactlyOnce, svc, small(t))
	if !v.Held || len(v.Lost) != 0 || !slices.Equal(values(v.InputLost), []int64{1, 3, 5, 7, 9}) {
		t.Errorf("held %v, lost %v, lost from the input %v; want held, none lost by the code, 1..9 odd lost from the input",
			v.Held, values(v.Lost), values(v.InputLost))
	}
	if !strings.Contains(ft.errors, "5 acknowledged input records lost from the input topic") {
		t.Errorf("Check failed with %q, want it to say the cluster lost input", ft.errors)
	}
}

// truncateHead deletes input partition 0's first n records once they are
// there.
func truncateHead(ctx context.Context, env chaostest.Env, n int64) error {
	c, err := kafka.NewConsumer(&kafka.ConfigMap{"bootstrap.servers": env.Bootstrap, "group.id": "truncate", "log_level": 0})
	if err != nil {
		return err
	}
	defer c.Close()
	for {
		if _, hi, err := c.QueryWatermarkOffsets(env.Input, 0, 1000); err == nil && hi >= n {
			break
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		time.Sleep(20 * time.Millisecond)
	}
	a, err := kafka.NewAdminClientFromConsumer(c)
	if err != nil {
		return err
	}
	defer a.Close()
	_, err = a.DeleteRecords(ctx, []kafka.TopicPartition{{Topic: &env.Input, Partition: 0, Offset: kafka.Offset(n)}})
	return err
}
