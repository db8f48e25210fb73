package generators

import (
	"slices"

	"github.com/kafkachaos/kafkachaos/model"
)

// Behavior:
//
// * Instantaneous: crashes a consumer at Params.Point (anywhere,
//   after-commit, before-commit) at Start, then every Params.Every; a new
//   one takes its place. A commit point is passed only by a group member
//   that owns partitions and polls records (groupJoin after the start and
//   after each crash), and only points the consumers reach are accepted
//   (CrashPoints); a client process is killed wherever it is.
// * Footprint: the consumers; a draw keeps it apart from churn and other
//   consumer crashes.
// * Drawn at a point its consumers reach in time, repeating no sooner
//   than its crash lands; --nemesis takes --crash-point, every 500 ms.

// KindCrashConsumer crashes a consumer at Params.Point; a new one takes
// its place.
const KindCrashConsumer = "crash-consumer"

func crashConsumerKind() Kind {
	return Kind{Name: KindCrashConsumer, Instant: true, Drawn: true,
		Doc: "Crashes a consumer where Params.Point says (anywhere, after-commit or before-commit), at Start and then " +
			"every Params.Every; a new one takes its place.",
		Owns: []string{"point"},
		need: func(f Fault, s Scenario) need {
			if f.Params.Point != "" && f.Params.Point != CrashAnywhere && s.Workload.Mode == ModeGroup {
				// a commit point is passed only by a member that owns
				// partitions and polls records: after the run starts, and
				// again after each crash, when the crashed member's
				// successor has joined
				return need{consumers: true, warmup: groupJoin, effect: groupJoin}
			}
			return need{consumers: true, warmup: clientStart, effect: crashEffect}
		},
		check:     checkCrashPoint,
		footprint: clientFootprint("consumers"),
		defaults: func(f *Fault, limit Duration, fl FaultFlags) {
			everyFlag(f, limit, fl)
			f.Params.Point = fl.Point
		},
		draw: func(d drawer, label func(string) string, s Scenario) FaultParams {
			f := Fault{Kind: KindCrashConsumer, Params: FaultParams{Point: d.pick(label("point"), drawnPoints(s))}}
			return withEvery(d, label, s, f)
		},
	}
}

// checkCrashPoint checks that the point is one s's consumers reach, and
// one a client process's SIGKILL can aim at.
func checkCrashPoint(f Fault, field string, s *Scenario) error {
	p := f.Params.Point
	switch {
	case p == "":
		return nil
	case !slices.Contains(CrashPoints(*s), p):
		return bad(field+".params.point", "%q is never reached by this scenario's consumers (mode %s, commit %s): want one of %v",
			p, s.Workload.Mode, s.Consumer.CommitStrategy, CrashPoints(*s))
	case s.Workload.ClientProcesses && p != CrashAnywhere:
		return bad(field+".params.point", "%q: a client process is killed wherever it is (SIGKILL); want anywhere", p)
	}
	return nil
}

// drawnPoints is the crash points drawn for s: those its consumers reach
// (CrashPoints) and whose crash fits its time limit (a commit point waits
// for the group to form, and a short run may end first), but only anywhere
// when group members outnumber the keys. A member without a partition
// never commits, so a commit-point crash would land only if the draw of
// which consumer to crash were lucky.
func drawnPoints(s Scenario) []string {
	if s.Workload.Mode == ModeGroup && s.Workload.Consumers > s.Keys.Count {
		return []string{CrashAnywhere}
	}
	var out []string
	for _, p := range CrashPoints(s) {
		if p == CrashAnywhere || fits(s, Fault{Kind: KindCrashConsumer, Params: FaultParams{Point: p}}) {
			out = append(out, p)
		}
	}
	return out
}

// CrashPoints is the consumer crash points s's consumers reach: a crash
// requested at any other point could never take effect. Only group
// consumers commit as the strategy says (assign-mode and transactional
// consumers commit nothing themselves), and a poll passes after-commit only
// when it commits before processing or auto-commits, before-commit only
// when it commits after processing. franz-go's automatic commits never
// cover a poll's records before the next poll begins, so its auto-commit
// consumers pass no after-commit point.
func CrashPoints(s Scenario) []string {
	if s.Workload.Mode != ModeGroup {
		return []string{CrashAnywhere}
	}
	switch s.Consumer.CommitStrategy {
	case model.CommitBeforeProcessing:
		return []string{CrashAnywhere, CrashAfterCommit}
	case model.CommitAfterProcessing:
		return []string{CrashAnywhere, CrashBeforeCommit}
	case model.CommitAuto:
		if s.ClientOf(RoleConsumer) == ClientFranzGo {
			return []string{CrashAnywhere}
		}
		// after an auto-commit covered records not yet processed
		return []string{CrashAnywhere, CrashAfterCommit}
	}
	return []string{CrashAnywhere}
}
