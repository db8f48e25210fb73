package k8s

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/kafkachaos/kafkachaos/generators"
	"sigs.k8s.io/yaml"
)

// Rendered is a scenario as Kubernetes objects, and what the rendering
// could not say in them.
type Rendered struct {
	// Harness is harness.yaml: the ConfigMap and the Job.
	Harness []byte
	// Chaos is chaos.yaml: the Workflow of the faults Chaos Mesh plays;
	// nil when there are none.
	Chaos []byte
	// Notes say what became of each fault of the schedule, in its order.
	Notes []Note
	// Cluster says what of the scenario's cluster must be set by hand.
	Cluster []string
}

// How a fault was rendered.
const (
	AsChaos     = "chaos"        // a step of the Workflow
	ByHarness   = "harness"      // kept in the harness's scenario
	NotRendered = "not rendered" // neither: Text says why
)

// Note is what became of one fault of the schedule.
type Note struct {
	Step  string // its templates' name in the Workflow (f1-kill)
	Kind  string
	As    string   // AsChaos, ByHarness or NotRendered
	Texts []string // how it differs from the harness's fault, or why it was not rendered
}

// File names Write gives the rendered output.
const (
	HarnessFile = "harness.yaml"
	ChaosFile   = "chaos.yaml"
	NotesFile   = "NOTES.md"
)

// Render renders s with o.
func Render(s generators.Scenario, o Options) (Rendered, error) {
	o, err := o.withDefaults()
	if err != nil {
		return Rendered{}, err
	}
	name := objectName(s.Name)
	harness := labels(name, "harness")
	e := env{o: o, brokers: max(s.Cluster.Brokers, 1), harness: harness}
	out := Rendered{Cluster: clusterNotes(s.Cluster)}
	var steps []step
	for i, f := range s.Nemesis {
		n, st, ok := renderFault(i, f, e)
		out.Notes = append(out.Notes, n)
		if ok {
			steps = append(steps, st)
		}
	}
	cm, err := configMap(name, o, harness, harnessScenario(s))
	if err != nil {
		return Rendered{}, err
	}
	if out.Harness, err = documents(cm, job(name, o, harness, s.Seed)); err != nil {
		return Rendered{}, err
	}
	if len(steps) > 0 {
		if out.Chaos, err = documents(workflow(name, o.Namespace, labels(name, "chaos"), steps)); err != nil {
			return Rendered{}, err
		}
	}
	return out, nil
}

// renderFault is the i-th fault's note and, when Chaos Mesh plays it, its
// step.
func renderFault(i int, f generators.Fault, e env) (Note, step, bool) {
	n := Note{Step: stepName(i, f.Kind), Kind: f.Kind}
	r, known := renderings()[f.Kind]
	switch {
	case harnessKind(f.Kind):
		n.As, n.Texts = ByHarness, []string{"acts on the harness's own clients: the harness plays it in its pods"}
		return n, step{}, false
	case !known:
		n.As, n.Texts = NotRendered, []string{"no Kubernetes rendering is known for this kind"}
		return n, step{}, false
	case r.chaos == nil:
		n.As, n.Texts = NotRendered, []string{r.reason}
		return n, step{}, false
	}
	t, texts, err := r.chaos(f, e)
	if err != nil {
		n.As, n.Texts = NotRendered, []string{err.Error()}
		return n, step{}, false
	}
	t.Name = n.Step
	n.As, n.Texts = AsChaos, texts
	return n, step{chaos: t, start: f.Start, duration: f.Duration}, true
}

// labels are the recommended Kubernetes labels of the objects of one
// rendering; component tells the harness's from the chaos's.
func labels(instance, component string) map[string]string {
	return map[string]string{
		"app.kubernetes.io/name":      "kafkachaos",
		"app.kubernetes.io/instance":  instance,
		"app.kubernetes.io/component": component,
	}
}

// nameRun is what a DNS-1123 label may not hold.
var nameRun = regexp.MustCompile(`[^a-z0-9]+`)

// objectName is the objects' name: kafkachaos-SCENARIO as a DNS-1123
// label, short enough for a Job's pods' names.
func objectName(scenario string) string {
	n := strings.Trim(nameRun.ReplaceAllString(strings.ToLower(scenario), "-"), "-")
	if n == "" {
		return "kafkachaos"
	}
	full := "kafkachaos-" + n
	return strings.TrimRight(full[:min(len(full), 52)], "-")
}

// documents is objs as one YAML stream.
func documents(objs ...any) ([]byte, error) {
	var b bytes.Buffer
	for i, o := range objs {
		y, err := yaml.Marshal(o)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b.WriteString("---\n")
		}
		b.Write(y)
	}
	return b.Bytes(), nil
}

// Write writes the rendering into dir (made if missing): HarnessFile,
// ChaosFile when there is a Workflow, and NotesFile.
func (r Rendered) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files := map[string][]byte{HarnessFile: r.Harness, NotesFile: []byte(r.NotesText())}
	if r.Chaos != nil {
		files[ChaosFile] = r.Chaos
	}
	for f, b := range files {
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Unrendered is the notes of the faults neither Chaos Mesh nor the harness
// plays.
func (r Rendered) Unrendered() []Note {
	var out []Note
	for _, n := range r.Notes {
		if n.As == NotRendered {
			out = append(out, n)
		}
	}
	return out
}

// NotesText is NOTES.md: how to apply the rendering, and what became of
// each fault.
func (r Rendered) NotesText() string {
	var b strings.Builder
	b.WriteString("# Rendered by kafkachaos k8s render\n\n")
	fmt.Fprintf(&b, "Apply %s and, when present, %s together: the Workflow's offsets count from the moment it is applied, "+
		"the harness's from the start of its workload, which comes after it has connected and created its topics. "+
		"Chaos Mesh (chaos-mesh.org/v1alpha1) must be installed in the cluster.\n\n", HarnessFile, ChaosFile)
	for _, c := range r.Cluster {
		fmt.Fprintf(&b, "Cluster: %s.\n\n", c)
	}
	if len(r.Notes) == 0 {
		b.WriteString("The scenario schedules no faults.\n")
		return b.String()
	}
	b.WriteString("| step | kind | as | notes |\n|---|---|---|---|\n")
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", n.Step, n.Kind, n.As, strings.Join(n.Texts, "; "))
	}
	return b.String()
}
