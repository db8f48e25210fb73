package generators

import (
	"slices"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/model"
)

// Behavior:
//
// * SIGKILLs Params.Target's brokers (one, leader, replicas, all; all by
//   default) and discards what their disks had not synced; they start
//   again at the window's end. A majority must be up when it starts.
// * Footprint: the brokers down and their disks: no other disk fault may
//   overlap it (the same broker's, or all).
// * Heal budget: brokers restarted from a lost page cache recover their
//   logs, and all of them must also elect a quorum again: long for all,
//   nothing beyond the restart for fewer.
// * Drawn with a target whose heal fits the run.

// KindPowerLoss SIGKILLs Params.Target's brokers (one, leader, replicas:
// every replica of key 0's partition, or all; default all) and discards
// every write their disks had not synced, as a power loss takes the page
// cache; they start again at the window's end. A scenario with one runs
// its brokers on lazyfs (Scenario.LazyDisks).
const KindPowerLoss = "power-loss"

// powerLossAllHeal is how long a cluster whose every broker lost power
// may take to be healthy again: every log recovered after an unclean
// shutdown, the quorum elected, every partition led.
const powerLossAllHeal = 45 * time.Second

func powerLossTargets() []string { return []string{"one", "leader", TargetReplicas, "all"} }

func powerLossKind() Kind {
	return Kind{Name: KindPowerLoss, Capability: cluster.CapDisk, Drawn: true,
		targets: powerLossTargets(), heal: powerLossAllHeal, least: FaultParams{Target: "one"}, defaultTarget: "all",
		healOf: func(f Fault) time.Duration {
			if f.Params.DiskTarget(KindPowerLoss) == "all" {
				return powerLossAllHeal
			}
			return 0
		},
		Doc: "SIGKILLs Params.Target's brokers (one, leader, replicas: every replica of key 0's partition, or all; all by " +
			"default) and discards every write their disks had not synced, as a power loss takes the page cache; they " +
			"start again at the window's end. The brokers' data then live on lazyfs (the local provider as root).",
		need:      staticNeed(need{takesDown: true}),
		check:     func(f Fault, field string, _ *Scenario) error { return checkDiskTarget(f, field, powerLossTargets()) },
		footprint: diskFootprint,
		draw: func(d drawer, label func(string) string, s Scenario) FaultParams {
			return FaultParams{Target: d.pick(label("target"), fitting(s, KindPowerLoss, powerLossTargets()))}
		},
	}
}

// fitting is the targets of kind that could take effect alone in s (see
// fits); the first, which asks least, when none does.
func fitting(s Scenario, kind string, targets []string) []string {
	var out []string
	for _, t := range targets {
		if fits(s, Fault{Kind: kind, Params: FaultParams{Target: t}}) {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return targets[:1]
	}
	return out
}

// Conditions is what s's faults take from the model's assumptions: a power
// loss of every replica of key 0's partition (target replicas or all) on
// brokers that do not flush every message discards acknowledged records
// no replica had synced.
func (s Scenario) Conditions() model.Conditions {
	flushed := s.Cluster.BrokerConfigs["log.flush.interval.messages"] == "1"
	return model.Conditions{UnsyncedLoss: !flushed && slices.ContainsFunc(s.Nemesis, func(f Fault) bool {
		t := f.Params.DiskTarget(f.Kind)
		return f.Kind == KindPowerLoss && (t == TargetReplicas || t == "all")
	})}
}
