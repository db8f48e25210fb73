package nemesis

import (
	"fmt"
	"sort"
	"time"
)

// Step starts Fault At after the schedule begins and stops it Duration
// later. A zero Duration is an instant fault (a leader move): it is started
// and stopped at once.
type Step struct {
	At       time.Duration
	Duration time.Duration
	Fault    Fault
}

// Schedule is a list of steps; steps may overlap.
type Schedule []Step

// Validate names the first step that cannot run.
func (s Schedule) Validate() error {
	for i, st := range s {
		switch {
		case st.Fault == nil:
			return fmt.Errorf("schedule step %d: no fault", i)
		case st.At < 0:
			return fmt.Errorf("schedule step %d (%s): at = %v, want >= 0", i, st.Fault.Name(), st.At)
		case st.Duration < 0:
			return fmt.Errorf("schedule step %d (%s): duration = %v, want >= 0", i, st.Fault.Name(), st.Duration)
		}
	}
	return nil
}

// event is a start or stop of step i at a time.
type event struct {
	at    time.Duration
	step  int
	start bool
}

// timeline orders every start and stop. At one instant the stops of
// windows come first, so that faults of one kind hand over, then the
// starts, then the stops of instant steps (zero Duration), each after its
// own start: a stop sorted before its start would leave the step active
// to the end of the schedule.
func (s Schedule) timeline() []event {
	evs := make([]event, 0, 2*len(s))
	for i, st := range s {
		evs = append(evs, event{st.At, i, true}, event{st.At + st.Duration, i, false})
	}
	rank := func(e event) int {
		switch {
		case e.start:
			return 1
		case s[e.step].Duration == 0:
			return 2
		}
		return 0
	}
	sort.SliceStable(evs, func(a, b int) bool {
		if evs[a].at != evs[b].at {
			return evs[a].at < evs[b].at
		}
		return rank(evs[a]) < rank(evs[b])
	})
	return evs
}
