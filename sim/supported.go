package sim

import (
	"errors"
	"fmt"
	"slices"

	"github.com/kafkachaos/kafkachaos/generators"
)

// supported reports what of s the simulation cannot run, so that no draw
// is judged as if it had: copiers (and their transactional producers) are
// not simulated yet, and fault kinds beyond kfake's are not either.
func supported(s generators.Scenario) error {
	var errs []error
	if s.Workload.Copiers > 0 || s.Producer.Transactional() {
		errs = append(errs, errors.New("copiers and transactional producers are not simulated yet"))
	}
	kinds := generators.KindsFor("sim")
	for i, f := range s.Nemesis {
		if !slices.Contains(kinds, f.Kind) {
			errs = append(errs, fmt.Errorf("nemesis[%d]: kind %q is not simulated (want one of %v)", i, f.Kind, kinds))
		}
	}
	return errors.Join(errs...)
}
