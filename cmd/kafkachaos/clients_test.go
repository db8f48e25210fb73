package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/matrix"
	"github.com/kafkachaos/kafkachaos/model"
	"github.com/kafkachaos/kafkachaos/runner"
)

func TestClientsBadFlagsExitTwo(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		args []string
		want string
	}{
		{"clients", []string{"--clients", "librdkafka,kcat"}, `--clients: unknown client "kcat"`},
		{"clients", []string{"--clients", "java,java"}, "--clients: java named twice"},
		{"clients", []string{"--clients", "java@3.9"}, `--clients java@3.9: client-version: "3.9", want a kafka-clients release`},
		{"matrix", []string{"--clients", "librdkafka@2.6.0"}, "only the java client has versions"},
		{"clients", []string{"--rows", "nosuch"}, `--rows: unknown id "nosuch"`},
	} {
		code, _, errs := cli(t, append([]string{tc.cmd, "--out", t.TempDir()}, tc.args...)...)
		if code != exitError || !strings.Contains(errs, tc.want) {
			t.Errorf("%s %v: exit %d, stderr %q; want %d and %q", tc.cmd, tc.args, code, errs, exitError, tc.want)
		}
	}
}

// A client weaker than another under the same scenario makes the command
// exit 1 and name both; clients that agree exit 0. Both write CLIENTS.md.
func TestClientsExitStatus(t *testing.T) {
	for _, tc := range []struct {
		name  string
		javaG model.Guarantee
		code  int
		want  string
	}{
		{"agree", model.AtMostOnce, exitValid, "0 finding(s), 0 difference(s)"},
		{"java weaker", model.None, exitInvalid, "DIFFERENCE acks=0 x lost acks: java weaker than librdkafka: producer observed none against at-most-once"},
	} {
		opts, err := matrixOptions("embedded", "acks-0", "lost-ack", t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		opts.Run = func(_ context.Context, s generators.Scenario, _ runner.Options) (runner.Outcome, error) {
			g := model.AtMostOnce
			if s.Client == generators.ClientJava {
				g = tc.javaG
			}
			out := runner.Outcome{Held: true, Observed: model.Observation{Producer: g, EndToEnd: g}}
			out.Stats.FaultsFired = 1 // compared only where the fault fired
			return out, nil
		}
		var stdout, stderr strings.Builder
		clients := []matrix.Client{{Name: generators.ClientLibrdkafka}, {Name: generators.ClientJava}}
		if code := runClients(opts, clients, &stdout, &stderr); code != tc.code || !strings.Contains(stdout.String(), tc.want) {
			t.Errorf("%s: exit %d, stdout %q; want %d and %q", tc.name, code, stdout.String(), tc.code, tc.want)
		}
		if _, err := os.Stat(filepath.Join(opts.Out, matrix.ClientsMarkdownFile)); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}
