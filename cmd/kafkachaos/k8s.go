package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/k8s"
)

// k8sUsage is the usage of `kafkachaos k8s`, whose one subcommand is render.
const k8sUsage = "usage: kafkachaos k8s render --scenario FILE [--namespace NS] [--bootstrap SERVICE:PORT]\n" +
	"                      [--kafka-selector label=value,...] [--shards N] [--image IMG] [--data-path DIR] [-o DIR]"

// k8sCmd is `kafkachaos k8s render`: a scenario as Kubernetes objects, the
// harness's Job and ConfigMap and a Chaos Mesh Workflow of its faults.
// Exit 0 when rendered (the faults it could not render are named on
// stderr and in NOTES.md), 2 on bad flags or a bad scenario.
func k8sCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
		fmt.Fprintln(stderr, k8sUsage)
		return exitValid
	}
	if len(args) == 0 || args[0] != "render" {
		fmt.Fprintln(stderr, k8sUsage)
		return exitError
	}
	return k8sRender(args[1:], stdout, stderr)
}

func k8sRender(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("k8s render", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o k8s.Options
	scenario := fs.String("scenario", "", "the scenario.json (or run directory) to render")
	fs.StringVar(&o.Namespace, "namespace", k8s.DefaultNamespace, "namespace of the Kafka cluster's pods and of every rendered object")
	fs.StringVar(&o.Bootstrap, "bootstrap", k8s.DefaultBootstrap, "the cluster's bootstrap service, SERVICE:PORT (a Strimzi NAME-kafka-bootstrap names the broker pods' labels)")
	selector := fs.String("kafka-selector", "", "the broker pods' labels, label=value,...; default the Strimzi labels of the --bootstrap cluster")
	fs.IntVar(&o.Shards, "shards", 0, "render an Indexed Job of N `kafkachaos explore --shard i/N` pods instead of one `kafkachaos run` of the scenario")
	fs.StringVar(&o.Image, "image", k8s.DefaultImage, "the harness's container image (kafkachaos on its PATH)")
	fs.StringVar(&o.DataPath, "data-path", k8s.DefaultDataPath, "where a broker's data volume is mounted in its kafka container (disk faults)")
	dir := fs.String("o", "", "write harness.yaml, chaos.yaml and NOTES.md into this directory (default: the YAML on stdout, the notes on stderr)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, k8sUsage)
		fmt.Fprintln(stderr, "renders the scenario as the harness's Job and ConfigMap and a Chaos Mesh Workflow of its faults;")
		fmt.Fprintln(stderr, "a fault it cannot render is named on stderr and in NOTES.md")
		fmt.Fprintln(stderr, "exit status: 0 rendered, 2 bad flags or a bad scenario")
		fs.PrintDefaults()
	}
	if exit, ok := parseFlags(fs, args); !ok {
		return exit
	}
	if *scenario == "" || fs.NArg() > 0 {
		fmt.Fprintf(stderr, "kafkachaos k8s render: --scenario FILE is required, and no arguments (got %q)\n", fs.Args())
		return exitError
	}
	labels, err := brokerLabels(*selector, o.Bootstrap)
	if err != nil {
		fmt.Fprintln(stderr, "kafkachaos k8s render:", err)
		return exitError
	}
	o.Brokers = labels
	s, err := generators.Load(*scenario)
	if err != nil {
		fmt.Fprintln(stderr, "kafkachaos k8s render:", err)
		return exitError
	}
	r, err := k8s.Render(s, o)
	if err != nil {
		fmt.Fprintln(stderr, "kafkachaos k8s render:", err)
		return exitError
	}
	return k8sOutput(r, *dir, stdout, stderr)
}

// brokerLabels are the broker pods' labels: --kafka-selector's, or the
// Strimzi labels of the cluster --bootstrap names.
func brokerLabels(selector, bootstrap string) (map[string]string, error) {
	if selector != "" {
		labels, err := k8s.ParseLabels(selector)
		if err != nil {
			return nil, fmt.Errorf("--kafka-selector: %w", err)
		}
		return labels, nil
	}
	labels, err := k8s.BrokerLabels(bootstrap)
	if err != nil {
		return nil, fmt.Errorf("--bootstrap: %w (or give --kafka-selector)", err)
	}
	return labels, nil
}

// k8sOutput writes r into dir, or onto stdout (YAML) and stderr (notes),
// and names every fault it did not render on stderr.
func k8sOutput(r k8s.Rendered, dir string, stdout, stderr io.Writer) int {
	if dir == "" {
		stdout.Write(r.Harness)
		if r.Chaos != nil {
			fmt.Fprintln(stdout, "---")
			stdout.Write(r.Chaos)
		}
		fmt.Fprint(stderr, r.NotesText())
	} else {
		if err := r.Write(dir); err != nil {
			fmt.Fprintln(stderr, "kafkachaos k8s render:", err)
			return exitError
		}
		files := []string{k8s.HarnessFile, k8s.NotesFile}
		if r.Chaos != nil {
			files = []string{k8s.HarnessFile, k8s.ChaosFile, k8s.NotesFile}
		}
		fmt.Fprintf(stdout, "%s: %s\n", dir, strings.Join(files, ", "))
	}
	for _, n := range r.Unrendered() {
		fmt.Fprintf(stderr, "kafkachaos k8s render: not rendered: %s (%s): %s\n", n.Step, n.Kind, strings.Join(n.Texts, "; "))
	}
	return exitValid
}
