package generators

// Behavior:
//
// * Instantaneous: makes a group member leave cleanly and a new one join,
//   at Start, then every Params.Every: group consumers must run.
// * Footprint: the consumers; a draw keeps it apart from consumer crashes.
// * Drawn repeating every 200 ms to 2 s; --nemesis every 500 ms.

// KindChurn makes a group member leave cleanly and a new one join.
const KindChurn = "churn"

func churnKind() Kind {
	return Kind{Name: KindChurn, Instant: true, Drawn: true,
		Doc:  "Makes a group member leave cleanly and a new one join, at Start and then every Params.Every.",
		need: staticNeed(need{consumers: true, group: true, warmup: clientStart}),
		check: func(f Fault, field string, s *Scenario) error {
			if s.Workload.ClientProcesses && s.Workload.Mode != ModeGroup {
				return bad(field+".kind", "churn needs group consumers")
			}
			return nil
		},
		footprint: clientFootprint("consumers"),
		defaults:  everyFlag,
		draw:      drawEvery(KindChurn),
	}
}
