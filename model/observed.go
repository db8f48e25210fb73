package model

import (
	"sort"

	"github.com/kafkachaos/kafkachaos/checkers"
)

// effect is what an anomaly says about delivery.
type effect int

const (
	// orderOnly anomalies (reordering, skipped reads, inconsistent offsets,
	// dependency cycles, interleaved transactions) do not change how many
	// times a message is delivered, but they make the run invalid.
	orderOnly effect = iota
	producerLoss
	producerDup
	consumerLoss
	consumerDup
)

// effects classifies every anomaly the checkers report. An anomaly missing
// here is reported as Unclassified rather than guessed at.
//
// Loss: lost-write, unseen (an acknowledged send that no read, not even the
// final reads to the end of the log, ever returned) and lost-after-read (a
// record an ok op read that the final reads no longer contain: the log
// truncated it, as after an unclean election) lose on the producer hop, and
// so does torn-transaction: a committed transaction only part of whose
// writes readers saw. A missing write is also lost-write or unseen where
// those rules place it, so the verdict is the one they give; an info
// transaction's write of unknown offset only torn-transaction can name.
// lost-delivery (a record below the group's committed offset that no member
// processed) loses on the consumer hop.
//
// interleaved-transaction (a committed transaction's write that landed
// inside the same producer's later transaction) is order-only, like G0 and
// G1c: atomicity is broken and the run is invalid, but the write is in the
// log, so nothing was lost by it. Had the later transaction aborted, the
// write would have gone with it; that shows as torn-transaction and
// lost-write or unseen, so the loss is counted there and never here.
//
// Duplication: duplicate (one value at two offsets) duplicates on the producer
// hop; duplicate-delivery (one record processed twice by a group) on the
// consumer hop. G1a (a read of an aborted transaction's record) and
// precommitted-read (a read of a record before its transaction committed)
// count as extra deliveries on the consumer hop: the producer was told, or
// could still be told, that the record did not happen, so it sends it again,
// and the consumer has then processed the same message twice. Counting them
// as loss would be wrong: nothing the producer believes delivered is missing.
var effects = map[checkers.Anomaly]effect{
	checkers.LostWrite:              producerLoss,
	checkers.Unseen:                 producerLoss,
	checkers.LostAfterRead:          producerLoss,
	checkers.TornTransaction:        producerLoss,
	checkers.Duplicate:              producerDup,
	checkers.LostDelivery:           consumerLoss,
	checkers.DuplicateDelivery:      consumerDup,
	checkers.G1a:                    consumerDup,
	checkers.PrecommittedRead:       consumerDup,
	checkers.InconsistentOffsets:    orderOnly,
	checkers.NonmonotonicSend:       orderOnly,
	checkers.IntNonmonotonicSend:    orderOnly,
	checkers.IntSendSkip:            orderOnly,
	checkers.PollSkip:               orderOnly,
	checkers.NonmonotonicPoll:       orderOnly,
	checkers.IntPollSkip:            orderOnly,
	checkers.IntNonmonotonicPoll:    orderOnly,
	checkers.G0:                     orderOnly,
	checkers.G1c:                    orderOnly,
	checkers.InterleavedTransaction: orderOnly,
}

// Observation is the guarantee a run showed, hop by hop, and the anomalies
// that decided it.
type Observation struct {
	Producer Guarantee `json:"producer"`
	Consumer Guarantee `json:"consumer"`
	// EndToEnd is Meet(Producer, Consumer).
	EndToEnd Guarantee `json:"end-to-end"`
	// Loss and Duplication are the anomalies found on each axis, sorted.
	Loss        []checkers.Anomaly `json:"loss,omitempty"`
	Duplication []checkers.Anomaly `json:"duplication,omitempty"`
	// OrderOnly are anomalies that leave the guarantee unchanged but make the
	// run invalid: the log or a consumer was inconsistent, not lossy.
	OrderOnly []checkers.Anomaly `json:"order-only,omitempty"`
	// Unclassified are anomaly names this package does not know; they make
	// the run invalid and are left for a person to judge.
	Unclassified []checkers.Anomaly `json:"unclassified,omitempty"`
}

// Observe classifies the anomalies of r. An anomaly counts when r names it
// in AnomalyTypes or has a case for it.
func Observe(r checkers.Result) Observation {
	var o Observation
	var pLose, pDup, cLose, cDup bool
	for _, a := range sortedAnomalies(r) {
		e, known := effects[a]
		switch {
		case !known:
			o.Unclassified = append(o.Unclassified, a)
		case e == orderOnly:
			o.OrderOnly = append(o.OrderOnly, a)
		case e == producerLoss || e == consumerLoss:
			o.Loss = append(o.Loss, a)
			pLose, cLose = pLose || e == producerLoss, cLose || e == consumerLoss
		default:
			o.Duplication = append(o.Duplication, a)
			pDup, cDup = pDup || e == producerDup, cDup || e == consumerDup
		}
	}
	o.Producer = FromAxes(pLose, pDup)
	o.Consumer = FromAxes(cLose, cDup)
	o.EndToEnd = Meet(o.Producer, o.Consumer)
	return o
}

// Observed is the end-to-end guarantee r showed: no loss and no duplicate is
// exactly-once, loss only at-most-once, duplicates only at-least-once, both
// none. A run can show exactly-once and still be invalid (see Observation).
func Observed(r checkers.Result) Guarantee { return Observe(r).EndToEnd }

// sortedAnomalies lists the anomalies of r that have cases, from both
// AnomalyTypes and Anomalies so that neither can hide a finding.
func sortedAnomalies(r checkers.Result) []checkers.Anomaly {
	seen := make(map[checkers.Anomaly]bool)
	for _, a := range r.AnomalyTypes {
		seen[a] = true
	}
	for a, cases := range r.Anomalies {
		if len(cases) > 0 {
			seen[a] = true
		}
	}
	out := make([]checkers.Anomaly, 0, len(seen))
	for a := range seen {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
