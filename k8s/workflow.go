package k8s

import (
	"fmt"

	"github.com/kafkachaos/kafkachaos/generators"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// step is one rendered fault: its chaos template, named, and when its
// window opens and how long it lasts.
type step struct {
	chaos           Template
	start, duration generators.Duration
}

// entryName is the workflow's entry template: every fault's branch in
// parallel.
const entryName = "schedule"

// workflow runs the steps on the scenario's timeline from the moment it is
// applied: a Parallel entry whose children are one Serial branch per
// fault, a Suspend until the fault's start and then its experiment until
// the end of its window.
func workflow(name, namespace string, labels map[string]string, steps []step) Workflow {
	w := Workflow{
		TypeMeta:   metav1.TypeMeta{APIVersion: ChaosMeshAPIVersion, Kind: "Workflow"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: labels},
		Spec:       WorkflowSpec{Entry: entryName},
	}
	entry := Template{Name: entryName, Type: TypeParallel}
	var branches []Template
	for _, s := range steps {
		branch := Template{Name: s.chaos.Name + "-branch", Type: TypeSerial}
		if s.start > 0 {
			wait := Template{Name: s.chaos.Name + "-wait", Type: TypeSuspend, Deadline: s.start.String()}
			branch.Children = append(branch.Children, wait.Name)
			branches = append(branches, wait)
		}
		chaos := s.chaos
		chaos.Deadline = s.duration.String()
		branch.Children = append(branch.Children, chaos.Name)
		entry.Children = append(entry.Children, branch.Name)
		branches = append(branches, branch, chaos)
	}
	w.Spec.Templates = append([]Template{entry}, branches...)
	return w
}

// stepName names the i-th fault's (from 0) templates: DNS-1123, unique in
// the workflow.
func stepName(i int, kind string) string { return fmt.Sprintf("f%d-%s", i+1, kind) }
