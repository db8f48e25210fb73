package generators

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// FaultReference is docs/faults.md: every kind's doc, with what the
// registry says of it (capability, providers that draw it, events, heal
// budget), in the registry's order. `make faults-doc` writes it; a test
// fails when the file is not current.
func FaultReference() string {
	var b strings.Builder
	b.WriteString("# Fault kinds\n\n")
	b.WriteString("<!-- Generated from the fault-kind registry (generators/kind_*.go) by `make faults-doc`; do not edit. -->\n\n")
	b.WriteString("A scenario's `nemesis` list schedules faults of these kinds; `kafkachaos run --nemesis kind,...` ")
	b.WriteString("runs each over the middle 80% of the run with its defaults. A window kind records a ")
	b.WriteString("`<kind>-start` and a `<kind>-stop` event, an instantaneous kind one `<kind>` event per step.\n\n")
	fmt.Fprintf(&b, "`params.target` names brokers when the fault starts, unless a kind lists its own: %s. ", strings.Join(realTargets(), ", "))
	fmt.Fprintf(&b, "A role names one broker: `%s` coordinates the run's first transactional id (its first txn queue's, else its first ", TargetTxnCoordinator)
	fmt.Fprintf(&b, "transactional copier's), `%s` its consumers' group (else the copiers'); a scenario without that role is refused. ", TargetGroupCoordinator)
	b.WriteString("Random draws never pick a role.\n\n")
	b.WriteString("| kind | capability | drawn on | events |\n| --- | --- | --- | --- |\n")
	for _, k := range Registry() {
		fmt.Fprintf(&b, "| [%s](#%s) | %s | %s | %s |\n", k.Name, k.Name, orDash(string(k.Capability)), orDash(strings.Join(drawnOn(k), ", ")), eventNames(k))
	}
	for _, k := range Registry() {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n", k.Name, jsonNames(k.Doc))
		if k.Capability == "" {
			b.WriteString("\nActs on the harness's own clients: every provider runs it.\n")
		} else {
			fmt.Fprintf(&b, "\nNeeds the provider capability `%s`.\n", k.Capability)
		}
		if h := k.HealBudget(); h > 0 {
			fmt.Fprintf(&b, "Its heal may need up to %s; a draw leaves it that long before the run's end and before a fault it must not overlap.\n", h)
		}
		if o := k.Outlives(); o != "" {
			fmt.Fprintf(&b, "Its heal cannot undo everything: %s; a cluster shared by many runs is replaced after a run with it.\n", o)
		}
		if !k.Drawn {
			b.WriteString("Scheduled by hand: random draws do not take it.\n")
		}
	}
	return b.String()
}

// drawnOn is the providers whose random draws take k.
func drawnOn(k Kind) []string {
	var out []string
	for _, p := range []string{"embedded", "sim", "local", "docker", "external"} {
		if slices.Contains(KindsFor(p), k.Name) {
			out = append(out, p)
		}
	}
	return out
}

// jsonNames spells a doc's parameters (Params.Target) as scenario.json
// does (params.target).
func jsonNames(doc string) string {
	t := reflect.TypeOf(FaultParams{})
	for i := range t.NumField() {
		f := t.Field(i)
		doc = strings.ReplaceAll(doc, "Params."+f.Name, "`params."+strings.Split(f.Tag.Get("json"), ",")[0]+"`")
	}
	return doc
}

func eventNames(k Kind) string {
	if k.Instant {
		return "`" + k.Name + "`"
	}
	return "`" + k.Name + "-start`, `" + k.Name + "-stop`"
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
