package sim

import (
	"errors"
	"fmt"
	"slices"

	"github.com/kafkachaos/kafkachaos/generators"
)

// supported reports what of s the simulation cannot run, so that no draw
// is judged as if it had: copiers other than subscribing transactional
// ones, txn queues, and fault kinds beyond kfake's.
func supported(s generators.Scenario) error {
	var errs []error
	if s.Workload.Copiers > 0 && (s.Workload.CopyMode() != generators.CopyTransactional || s.Workload.CopierAssign) {
		errs = append(errs, errors.New("only subscribing transactional copiers are simulated yet"))
	}
	if s.Workload.TxnQueues > 0 {
		errs = append(errs, errors.New("txn queues are not simulated yet"))
	}
	kinds := generators.KindsFor("sim")
	for i, f := range s.Nemesis {
		if !slices.Contains(kinds, f.Kind) {
			errs = append(errs, fmt.Errorf("nemesis[%d]: kind %q is not simulated (want one of %v)", i, f.Kind, kinds))
		}
	}
	return errors.Join(errs...)
}
