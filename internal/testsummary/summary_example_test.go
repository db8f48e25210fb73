package testsummary_test

import (
	"os"
	"strings"

	"github.com/kafkachaos/kafkachaos/internal/testsummary"
)

// Two go test invocations, as make test runs them: unit tests, and a
// real-Kafka suite on a machine without nft, where every test skipped.
func Example() {
	unit := `{"Action":"run","Package":"m/histories","Test":"TestRoundTrip"}
{"Action":"pass","Package":"m/histories","Test":"TestRoundTrip","Elapsed":0.1}
{"Action":"pass","Package":"m/histories","Elapsed":0.2}
{"Action":"run","Package":"m/client","Test":"TestCommit"}
{"Action":"output","Package":"m/client","Test":"TestCommit","Output":"    commit_test.go:40: offset 7 committed twice\n"}
{"Action":"fail","Package":"m/client","Test":"TestCommit","Elapsed":0.3}
{"Action":"fail","Package":"m/client","Elapsed":0.4}
`
	local := `{"Action":"run","Package":"m","Test":"TestChaosLocalAcks0"}
{"Action":"output","Package":"m","Test":"TestChaosLocalAcks0","Output":"    run_local_test.go:63: real-Kafka experiment on local needs nft\n"}
{"Action":"skip","Package":"m","Test":"TestChaosLocalAcks0"}
{"Action":"run","Package":"m","Test":"TestChaosLocalAcks1"}
{"Action":"output","Package":"m","Test":"TestChaosLocalAcks1","Output":"    run_local_test.go:63: real-Kafka experiment on local needs nft\n"}
{"Action":"skip","Package":"m","Test":"TestChaosLocalAcks1"}
{"Action":"pass","Package":"m","Elapsed":0.1}
`
	s := testsummary.Summary{Trim: "m"}
	for _, in := range []struct{ name, stream string }{{"unit", unit}, {"local", local}} {
		run, err := testsummary.Read(in.name, strings.NewReader(in.stream))
		if err != nil {
			panic(err)
		}
		s.Runs = append(s.Runs, run)
	}
	if err := s.WriteText(os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// === test summary (2 go test runs)
	// unit     packages: 1 passed, 1 failed, 0 without tests; tests: 1 passed, 1 failed, 0 skipped
	// local    packages: 1 passed, 0 failed, 0 without tests; tests: 0 passed, 0 failed, 2 skipped
	// FAILED (1):
	//   unit: client TestCommit (fail): offset 7 committed twice
	// SKIPPED: 2 tests did not run, for 1 reason:
	//   local, 2 tests: real-Kafka experiment on local needs nft
	//       . TestChaosLocalAcks0, . TestChaosLocalAcks1
	// result: FAIL (1 failed); 2 tests skipped (reasons above)
}
