package k8s

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/generators"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// workflowCRD is Chaos Mesh's published Workflow CRD (testdata/crds/README.md).
const workflowCRD = "testdata/crds/chaos-mesh.org_workflows.yaml.gz"

func fixture(t *testing.T) generators.Scenario {
	t.Helper()
	s, err := generators.Load(filepath.Join("testdata", "scenario.json"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func render(t *testing.T, s generators.Scenario, o Options) Rendered {
	t.Helper()
	r, err := Render(s, o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// withFaults is the fixture with another schedule, unchecked: Render reads
// the schedule as given.
func withFaults(t *testing.T, faults ...generators.Fault) generators.Scenario {
	s := fixture(t)
	s.Nemesis = faults
	return s
}

// everyRenderable schedules every kind Chaos Mesh plays, with the
// parameters and targets that change what is rendered.
func everyRenderable(t *testing.T) generators.Scenario {
	p := func(kind string, params generators.FaultParams) generators.Fault {
		return generators.Fault{Kind: kind, Start: generators.Duration(time.Second), Duration: generators.Duration(5 * time.Second), Params: params}
	}
	return withFaults(t,
		p(generators.KindKill, generators.FaultParams{Nodes: []int32{1, 2}}),
		p(generators.KindCleanRestart, generators.FaultParams{Target: "controller"}),
		p(generators.KindPartition, generators.FaultParams{Target: "majority"}),
		p(generators.KindIsolateLeader, generators.FaultParams{}),
		p(generators.KindCutClients, generators.FaultParams{Target: "leader"}),
		p(generators.KindPacketLoss, generators.FaultParams{Percent: 30}),
		p(generators.KindSlowLink, generators.FaultParams{BitsPerSecond: 1 << 20}),
		p(generators.KindLatency, generators.FaultParams{Link: generators.LinkReplication}),
		p(generators.KindLatency, generators.FaultParams{Toxic: "bandwidth", BitsPerSecond: 8000}),
		p(generators.KindClockSkew, generators.FaultParams{}),
		p(generators.KindDiskFault, generators.FaultParams{Disk: generators.DiskReadEIO, Target: "leader"}),
		generators.Fault{Kind: generators.KindKill, Duration: generators.Duration(time.Second)},
	)
}

// The fixture (kill, partition, latency, clock skew, disk fault, a pause
// Chaos Mesh cannot play and a consumer crash the harness plays) renders
// as the golden files say. go test ./k8s -update rewrites them.
func TestRenderMatchesGoldenFiles(t *testing.T) {
	r := render(t, fixture(t), Options{})
	for name, got := range map[string][]byte{HarnessFile: r.Harness, ChaosFile: r.Chaos, NotesFile: []byte(r.NotesText())} {
		path := filepath.Join("testdata", "golden", name)
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from %s (go test ./k8s -update rewrites it):\n%s", name, path, got)
		}
	}
}

// split is a YAML stream's documents.
func split(stream []byte) [][]byte {
	var out [][]byte
	for _, d := range bytes.Split(stream, []byte("---\n")) {
		if len(bytes.TrimSpace(d)) > 0 {
			out = append(out, d)
		}
	}
	return out
}

// typed decodes a document strictly (an unknown field fails) into the type
// of its kind, and returns the object encoded again.
func typed(t *testing.T, doc []byte) (any, []byte) {
	t.Helper()
	var head struct{ Kind string }
	if err := yaml.Unmarshal(doc, &head); err != nil {
		t.Fatal(err)
	}
	var obj any
	switch head.Kind {
	case "ConfigMap":
		obj = &corev1.ConfigMap{}
	case "Job":
		obj = &batchv1.Job{}
	case "Workflow":
		obj = &Workflow{}
	default:
		t.Fatalf("kind %q has no typed definition here:\n%s", head.Kind, doc)
	}
	if err := yaml.UnmarshalStrict(doc, obj); err != nil {
		t.Fatalf("%s: %v\n%s", head.Kind, err, doc)
	}
	again, err := yaml.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return obj, again
}

// Every emitted object decodes strictly into its typed definition
// (k8s.io/api's for the harness, this package's for Chaos Mesh) and
// encodes back to the same text: nothing is emitted that the types do not
// hold.
func TestEveryObjectRoundTripsThroughItsType(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    generators.Scenario
		o    Options
	}{
		{"fixture", fixture(t), Options{}},
		{"every renderable kind, sharded", everyRenderable(t), Options{Shards: 4}},
	} {
		r := render(t, tc.s, tc.o)
		kinds := map[string]bool{}
		for _, doc := range split(append(append(r.Harness, "---\n"...), r.Chaos...)) {
			obj, again := typed(t, doc)
			if !bytes.Equal(again, doc) {
				t.Errorf("%s: %T does not round-trip:\n%s\nbecame\n%s", tc.name, obj, doc, again)
			}
			kinds[typeName(obj)] = true
		}
		if len(kinds) != 3 {
			t.Errorf("%s: rendered %v, want a ConfigMap, a Job and a Workflow", tc.name, kinds)
		}
	}
}

func typeName(v any) string {
	switch v.(type) {
	case *corev1.ConfigMap:
		return "ConfigMap"
	case *batchv1.Job:
		return "Job"
	case *Workflow:
		return "Workflow"
	}
	return ""
}

// Every rendered Workflow passes the published Workflow CRD's OpenAPI
// schema (which embeds the PodChaos, NetworkChaos, TimeChaos and IOChaos
// specs) and the rules Chaos Mesh's admission webhook adds to it.
func TestWorkflowsPassChaosMeshSchemaAndWebhookRules(t *testing.T) {
	wf := crdSchema(t, workflowCRD, "v1alpha1")
	for name, s := range map[string]generators.Scenario{"fixture": fixture(t), "every renderable kind": everyRenderable(t)} {
		r := render(t, s, Options{})
		if errs := schemaErrors(t, wf, r.Chaos); len(errs) > 0 {
			t.Errorf("%s: the Workflow breaks the CRD's schema:\n%s", name, strings.Join(errs, "\n"))
		}
		var w Workflow
		if err := yaml.UnmarshalStrict(r.Chaos, &w); err != nil {
			t.Fatal(err)
		}
		for _, e := range webhookErrors(w) {
			t.Errorf("%s: %s", name, e)
		}
	}
}

// webhookErrors applies Chaos Mesh's Workflow admission rules to w:
// template names are unique DNS-1123 subdomains, the entry and every child
// exist, a Suspend has a deadline, a chaos template has its spec and a
// deadline (never a duration), and every deadline is a Go duration.
func webhookErrors(w Workflow) []string {
	var errs []string
	names := map[string]bool{}
	for _, tp := range w.Spec.Templates {
		if names[tp.Name] {
			errs = append(errs, "template name "+tp.Name+" is not unique")
		}
		names[tp.Name] = true
		for _, e := range validation.IsDNS1123Subdomain(tp.Name) {
			errs = append(errs, tp.Name+": "+e)
		}
	}
	if !names[w.Spec.Entry] {
		errs = append(errs, "entry "+w.Spec.Entry+" is no template")
	}
	for _, tp := range w.Spec.Templates {
		for _, c := range tp.Children {
			if !names[c] {
				errs = append(errs, tp.Name+": child "+c+" is no template")
			}
		}
		if tp.Deadline != "" {
			if _, err := time.ParseDuration(tp.Deadline); err != nil {
				errs = append(errs, tp.Name+": deadline: "+err.Error())
			}
		}
		specs := map[string]bool{TypePodChaos: tp.PodChaos != nil, TypeNetworkChaos: tp.NetworkChaos != nil,
			TypeTimeChaos: tp.TimeChaos != nil, TypeIOChaos: tp.IOChaos != nil}
		set := 0
		for _, ok := range specs {
			if ok {
				set++
			}
		}
		switch _, chaos := specs[tp.Type]; {
		case tp.Type == TypeSuspend && tp.Deadline == "":
			errs = append(errs, tp.Name+": a Suspend needs a deadline")
		case chaos && (!specs[tp.Type] || set != 1):
			errs = append(errs, tp.Name+": a "+tp.Type+" template needs its spec and no other")
		case chaos && tp.Deadline == "":
			errs = append(errs, tp.Name+": a chaos template in a workflow ends at its deadline, and has none")
		case !chaos && set > 0:
			errs = append(errs, tp.Name+": a "+tp.Type+" template carries a chaos spec")
		case !chaos && tp.Type != TypeSerial && tp.Type != TypeParallel && tp.Type != TypeSuspend:
			errs = append(errs, tp.Name+": unrecognized template type "+tp.Type)
		}
		for _, e := range specErrors(tp) {
			errs = append(errs, tp.Name+": "+e)
		}
	}
	return errs
}

// rateUnit is a bandwidth rate as Chaos Mesh's webhook reads it.
var rateUnit = regexp.MustCompile(`^[0-9]+(kbit|mbit|gbit|tbit|tbps|gbps|mbps|kbps|bps|bit)$`)

// specErrors applies the webhook's rules for the fields this package
// emits: a fixed mode's value is a positive count, durations, rates and
// percentages parse, an IO fault has an errno, and a netem action other
// than a partition acts both ways only with a target.
func specErrors(tp Template) []string {
	var errs []string
	selector := func(p *PodSelector) {
		if p == nil || p.Mode != ModeFixed {
			return
		}
		if n, err := strconv.Atoi(p.Value); err != nil || n <= 0 {
			errs = append(errs, fmt.Sprintf("mode fixed with value %q", p.Value))
		}
	}
	duration := func(what, d string) {
		if _, err := time.ParseDuration(d); err != nil {
			errs = append(errs, what+": "+err.Error())
		}
	}
	switch {
	case tp.PodChaos != nil:
		selector(&tp.PodChaos.PodSelector)
	case tp.TimeChaos != nil:
		selector(&tp.TimeChaos.PodSelector)
		duration("timeOffset", tp.TimeChaos.TimeOffset)
	case tp.IOChaos != nil:
		io := tp.IOChaos
		selector(&io.PodSelector)
		if io.Action == IOFault && io.Errno == 0 || io.Percent < 0 || io.Percent > 100 {
			errs = append(errs, fmt.Sprintf("ioChaos errno %d percent %d", io.Errno, io.Percent))
		}
	case tp.NetworkChaos != nil:
		n := tp.NetworkChaos
		selector(&n.PodSelector)
		selector(n.Target)
		if n.Action != NetPartition && n.Direction != "" && n.Direction != DirTo && n.Target == nil {
			errs = append(errs, "direction "+n.Direction+" without a target")
		}
		if n.Delay != nil {
			duration("latency", n.Delay.Latency)
			duration("jitter", n.Delay.Jitter)
		}
		if n.Loss != nil {
			if _, err := strconv.ParseFloat(n.Loss.Loss, 32); err != nil {
				errs = append(errs, "loss: "+err.Error())
			}
		}
		if n.Bandwidth != nil && !rateUnit.MatchString(n.Bandwidth.Rate) {
			errs = append(errs, "bandwidth rate "+n.Bandwidth.Rate)
		}
	}
	return errs
}

// Each fault's experiment runs from its start for its duration: the
// Suspend before it in its branch lasts until the fault's start, and the
// experiment's deadline is its duration.
func TestStepsFollowTheScenarioTimeline(t *testing.T) {
	s := fixture(t)
	var w Workflow
	if err := yaml.UnmarshalStrict(render(t, s, Options{}).Chaos, &w); err != nil {
		t.Fatal(err)
	}
	byName := map[string]Template{}
	for _, tp := range w.Spec.Templates {
		byName[tp.Name] = tp
	}
	entry := byName[w.Spec.Entry]
	if entry.Type != TypeParallel {
		t.Fatalf("entry %s is %s, want Parallel", entry.Name, entry.Type)
	}
	rendered := 0
	for i, f := range s.Nemesis {
		branch, ok := byName[stepName(i, f.Kind)+"-branch"]
		if !ok {
			continue
		}
		rendered++
		if !slices.Contains(entry.Children, branch.Name) || branch.Type != TypeSerial {
			t.Errorf("%s: a %s outside the entry's children %v", branch.Name, branch.Type, entry.Children)
		}
		var at time.Duration
		for _, c := range branch.Children {
			tp := byName[c]
			d, _ := time.ParseDuration(tp.Deadline)
			if tp.Type != TypeSuspend {
				if at != f.Start.D() || d != f.Duration.D() {
					t.Errorf("%s: runs from %v for %v, want from %v for %v", c, at, d, f.Start, f.Duration)
				}
				break
			}
			at += d
		}
	}
	if rendered != 5 {
		t.Errorf("%d faults rendered, want the fixture's 5 cluster faults", rendered)
	}
}

// A fault Chaos Mesh cannot play is reported with its reason, and so is a
// rendered fault's difference from the harness's; none is dropped.
func TestUnrenderableFaultsAreReported(t *testing.T) {
	w := generators.Duration(time.Second)
	s := withFaults(t,
		generators.Fault{Kind: generators.KindPause, Duration: w},
		generators.Fault{Kind: generators.KindLostAck, Duration: w},
		generators.Fault{Kind: generators.KindLatency, Duration: w, Params: generators.FaultParams{Toxic: "reset_peer"}},
		generators.Fault{Kind: generators.KindClockSkew, Duration: w, Params: generators.FaultParams{Mode: generators.ClockStrobe}},
		generators.Fault{Kind: "no-such-kind", Duration: w},
		generators.Fault{Kind: generators.KindCrashProducer, Duration: w},
	)
	r := render(t, s, Options{})
	if r.Chaos != nil {
		t.Errorf("no fault is Chaos Mesh's, yet a Workflow was rendered:\n%s", r.Chaos)
	}
	if len(r.Notes) != len(s.Nemesis) {
		t.Fatalf("%d notes for %d faults: %+v", len(r.Notes), len(s.Nemesis), r.Notes)
	}
	for _, want := range []struct{ kind, as, says string }{
		{generators.KindPause, NotRendered, "SIGSTOP"},
		{generators.KindLostAck, NotRendered, "request handling"},
		{generators.KindLatency, NotRendered, "toxic reset_peer"},
		{generators.KindClockSkew, NotRendered, "strobe"},
		{"no-such-kind", NotRendered, "no Kubernetes rendering"},
		{generators.KindCrashProducer, ByHarness, "harness plays it"},
	} {
		i := slices.IndexFunc(r.Notes, func(n Note) bool { return n.Kind == want.kind })
		if i < 0 {
			t.Errorf("%s: no note", want.kind)
			continue
		}
		n := r.Notes[i]
		if n.As != want.as || !strings.Contains(strings.Join(n.Texts, " "), want.says) {
			t.Errorf("%s: %s %q, want %s saying %q", want.kind, n.As, n.Texts, want.as, want.says)
		}
		if !strings.Contains(r.NotesText(), "| "+n.Step+" | "+n.Kind+" | "+n.As+" |") {
			t.Errorf("NOTES.md has no row for %s:\n%s", n.Step, r.NotesText())
		}
	}
	if got := len(r.Unrendered()); got != 5 {
		t.Errorf("%d unrendered, want 5", got)
	}
}

// Every registered fault kind is either the harness's (it acts on its own
// clients) or has a rendering or a reason here; no rendering names a kind
// the registry does not have.
func TestEveryKindHasARenderingOrAReason(t *testing.T) {
	rs := renderings()
	for _, k := range generators.Registry() {
		r, ok := rs[k.Name]
		switch {
		case harnessKind(k.Name) && ok:
			t.Errorf("%s acts on the harness's clients, yet has a rendering", k.Name)
		case !harnessKind(k.Name) && !ok:
			t.Errorf("%s acts on the cluster and has no rendering or reason", k.Name)
		case ok && (r.chaos == nil) == (r.reason == ""):
			t.Errorf("%s: want a rendering or a reason, one of the two", k.Name)
		}
	}
	for name := range rs {
		if _, ok := generators.LookupKind(name); !ok {
			t.Errorf("rendering for %s, which is no registered kind", name)
		}
	}
}

// configMapOf is the rendered ConfigMap.
func configMapOf(t *testing.T, r Rendered) corev1.ConfigMap {
	var cm corev1.ConfigMap
	if err := yaml.UnmarshalStrict(split(r.Harness)[0], &cm); err != nil {
		t.Fatal(err)
	}
	return cm
}

// jobOf is the rendered Job.
func jobOf(t *testing.T, r Rendered) batchv1.Job {
	var j batchv1.Job
	if err := yaml.UnmarshalStrict(split(r.Harness)[1], &j); err != nil {
		t.Fatal(err)
	}
	return j
}

// The harness's scenario is a valid scenario on the external cluster,
// holding only the faults on its own clients; its inventory names the
// bootstrap service, and its Job mounts both where its command reads them.
func TestHarnessRunsTheScenarioOnTheBootstrapService(t *testing.T) {
	r := render(t, fixture(t), Options{Bootstrap: "prod-kafka-bootstrap.kafka.svc:9093", Namespace: "streams"})
	cm := configMapOf(t, r)
	s, err := generators.Parse([]byte(cm.Data["scenario.json"]))
	if err != nil {
		t.Fatalf("the harness's scenario: %v", err)
	}
	if s.Cluster.Provider != "external" || len(s.Nemesis) != 1 || s.Nemesis[0].Kind != generators.KindCrashConsumer {
		t.Errorf("harness scenario on %q with %+v, want external with the consumer crash alone", s.Cluster.Provider, s.Nemesis)
	}
	if !strings.Contains(cm.Data["inventory.yaml"], "bootstrap: prod-kafka-bootstrap.kafka.svc:9093\n") {
		t.Errorf("inventory:\n%s", cm.Data["inventory.yaml"])
	}
	j := jobOf(t, r)
	c := j.Spec.Template.Spec.Containers[0]
	want := []string{"kafkachaos", "run", "--scenario", ScenarioFile, "--cluster", "external", "--inventory", InventoryFile}
	if !slices.Equal(c.Command, want) {
		t.Errorf("command %q, want %q", c.Command, want)
	}
	if j.Namespace != "streams" || cm.Namespace != "streams" || c.VolumeMounts[0].MountPath != filepath.Dir(ScenarioFile) ||
		j.Spec.Template.Spec.Volumes[0].ConfigMap.Name != cm.Name || j.Spec.CompletionMode != nil {
		t.Errorf("job %s/%s mounts %+v from %+v, completion mode %v", j.Namespace, j.Name, c.VolumeMounts,
			j.Spec.Template.Spec.Volumes, j.Spec.CompletionMode)
	}
	var w Workflow
	if err := yaml.UnmarshalStrict(r.Chaos, &w); err != nil {
		t.Fatal(err)
	}
	kill := w.Spec.Templates[slices.IndexFunc(w.Spec.Templates, func(tp Template) bool { return tp.Name == "f1-kill" })]
	if got := kill.PodChaos.Selector.LabelSelectors[LabelCluster]; got != "prod" || kill.PodChaos.Selector.Namespaces[0] != "streams" {
		t.Errorf("kill selects %+v, want cluster prod in namespace streams", kill.PodChaos.Selector)
	}
}

// With shards the Job is Indexed, one pod per shard, each running its
// 1-based shard of explore.
func TestShardsRenderAnIndexedJobOfExplore(t *testing.T) {
	j := jobOf(t, render(t, fixture(t), Options{Shards: 3}))
	if j.Spec.CompletionMode == nil || *j.Spec.CompletionMode != batchv1.IndexedCompletion ||
		*j.Spec.Completions != 3 || *j.Spec.Parallelism != 3 {
		t.Fatalf("spec %+v, want Indexed with 3 completions in parallel", j.Spec)
	}
	cmd := strings.Join(j.Spec.Template.Spec.Containers[0].Command, " ")
	for _, want := range []string{"kafkachaos explore --shard $((JOB_COMPLETION_INDEX+1))/3", "--seed 42", "--cluster external", InventoryFile} {
		if !strings.Contains(cmd, want) {
			t.Errorf("command %q does not say %q", cmd, want)
		}
	}
}

// Targets become Chaos Mesh modes: a minority and a majority of the
// scenario's brokers are fixed counts, the controller is a controller-role
// pod, named nodes are as many brokers; each says how it differs.
func TestTargetsBecomeSelectorModes(t *testing.T) {
	e := env{o: Options{Namespace: "kafka", Brokers: map[string]string{LabelCluster: "c", LabelBroker: "true"}}, brokers: 5}
	for _, tc := range []struct {
		params      generators.FaultParams
		mode, value string
		label, note string
	}{
		{generators.FaultParams{Target: "minority"}, ModeFixed, "2", LabelBroker, "5 brokers"},
		{generators.FaultParams{Target: "majority"}, ModeFixed, "3", LabelBroker, "5 brokers"},
		{generators.FaultParams{Target: "all"}, ModeAll, "", LabelBroker, ""},
		{generators.FaultParams{Target: "leader"}, ModeOne, "", LabelBroker, "not knowable"},
		{generators.FaultParams{Target: "controller"}, ModeOne, "", LabelController, "not knowable"},
		{generators.FaultParams{Target: generators.TargetTxnCoordinator}, ModeOne, "", LabelBroker, "(txn-coordinator) is not knowable"},
		{generators.FaultParams{Target: generators.TargetGroupCoordinator}, ModeOne, "", LabelBroker, "(group-coordinator) is not knowable"},
		{generators.FaultParams{Nodes: []int32{0, 4}}, ModeFixed, "2", LabelBroker, "are not pods"},
		{generators.FaultParams{}, ModeOne, "", LabelBroker, ""},
	} {
		sel, notes := e.aim(generators.Fault{Params: tc.params}, "one")
		_, hasLabel := sel.Selector.LabelSelectors[tc.label]
		if sel.Mode != tc.mode || sel.Value != tc.value || !hasLabel || sel.Selector.LabelSelectors[LabelCluster] != "c" ||
			(tc.note == "") != (len(notes) == 0) || !strings.Contains(strings.Join(notes, " "), tc.note) {
			t.Errorf("%+v: %+v, notes %q; want mode %s value %q with %s, a note saying %q", tc.params, sel, notes, tc.mode, tc.value, tc.label, tc.note)
		}
		if tc.label == LabelController {
			if _, ok := sel.Selector.LabelSelectors[LabelBroker]; ok {
				t.Errorf("controller target still selects the broker role: %v", sel.Selector.LabelSelectors)
			}
		}
	}
}

// Options that name no cluster are refused, each naming what is wrong.
func TestBadOptionsAreRefused(t *testing.T) {
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Bootstrap: "my-cluster-kafka-bootstrap"}, "want SERVICE:PORT"},
		{Options{Bootstrap: "kafka:9092"}, "not a Strimzi bootstrap service"},
		{Options{Shards: -1}, "shards -1"},
		{Options{DataPath: "data"}, "absolute path"},
	} {
		if _, err := Render(fixture(t), tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an error saying %q", tc.o, err, tc.want)
		}
	}
	if _, err := Render(fixture(t), Options{Bootstrap: "kafka:9092", Brokers: map[string]string{"app": "kafka"}}); err != nil {
		t.Errorf("any bootstrap with its brokers' labels: %v", err)
	}
	if _, err := ParseLabels("app=kafka,role"); err == nil || !strings.Contains(err.Error(), `label 2 "role"`) {
		t.Errorf("ParseLabels(app=kafka,role): %v, want label 2 named", err)
	}
}

// The objects' name is a DNS-1123 label short enough for a Job's pods.
func TestObjectNameIsADNSLabel(t *testing.T) {
	for _, in := range []string{"", "Run Consume/7", strings.Repeat("x", 80), "--"} {
		n := objectName(in)
		if errs := validation.IsDNS1123Label(n); len(errs) > 0 || len(n) > 52 || !strings.HasPrefix(n, "kafkachaos") {
			t.Errorf("objectName(%q) = %q: %v", in, n, errs)
		}
	}
}

// The webhook rules can fail: each broken rule is reported.
func TestWebhookRulesRefuseBadWorkflows(t *testing.T) {
	fixed0 := PodSelector{Mode: ModeFixed, Value: "0"}
	w := Workflow{Spec: WorkflowSpec{Entry: "missing", Templates: []Template{
		{Name: "a", Type: TypeSuspend},
		{Name: "a", Type: TypeSerial, Children: []string{"b"}},
		{Name: "Bad_Name", Type: TypePodChaos, Deadline: "1s", PodChaos: &PodChaosSpec{PodSelector: fixed0, Action: PodKill}},
		{Name: "c", Type: TypeNetworkChaos, NetworkChaos: &NetworkChaosSpec{Action: NetBandwidth, Bandwidth: &BandwidthSpec{Rate: "8kb"}}},
		{Name: "d", Type: TypeIOChaos, Deadline: "soon", IOChaos: &IOChaosSpec{Action: IOFault}},
	}}}
	errs := strings.Join(webhookErrors(w), "\n")
	for _, want := range []string{"a is not unique", "entry missing", "child b", "Suspend needs a deadline",
		"Bad_Name: a lowercase", `value "0"`, "c: a chaos template", "rate 8kb", "d: deadline", "errno 0"} {
		if !strings.Contains(errs, want) {
			t.Errorf("no error saying %q in:\n%s", want, errs)
		}
	}
}

// The harness's scenario asks nothing of the cluster the harness cannot
// give one it did not start: the features it gives its own brokers are
// dropped, and the broker configs are named for the Kafka resource.
func TestHarnessScenarioAsksNothingOfTheExternalCluster(t *testing.T) {
	s := fixture(t)
	s.Cluster.LazyDisks, s.Cluster.Clocks, s.Cluster.ClientProxies, s.Cluster.DynamicQuorum = true, true, true, true
	s.Cluster.BrokerConfigs = map[string]string{"unclean.leader.election.enable": "true", "log.flush.interval.messages": "1"}
	r := render(t, s, Options{})
	got, err := generators.Parse([]byte(configMapOf(t, r).Data["scenario.json"]))
	if err != nil {
		t.Fatalf("the harness's scenario: %v", err)
	}
	if !reflect.DeepEqual(got.Cluster, generators.Cluster{Provider: "external", Brokers: 3}) {
		t.Errorf("harness cluster %+v, want the external provider's 3 brokers alone", got.Cluster)
	}
	want := "spec.kafka.config: log.flush.interval.messages=1, unclean.leader.election.enable=true"
	if !strings.Contains(r.NotesText(), want) {
		t.Errorf("NOTES.md does not say %q:\n%s", want, r.NotesText())
	}
}
