package k8s

import "github.com/kafkachaos/kafkachaos/generators"

// Linux errno values, as the brokers' pods see them wherever this runs.
const (
	errnoEIO    = 5
	errnoENOSPC = 28
)

// diskFaultStep fails file operations on the data volume of the target's
// broker as Params.Disk says: writes and syncs with EIO or ENOSPC, or
// reads with EIO.
func diskFaultStep(f generators.Fault, e env) (Template, []string, error) {
	sel, notes := e.aim(generators.Fault{Params: generators.FaultParams{Target: f.Params.DiskTarget(f.Kind)}}, "one")
	spec := &IOChaosSpec{PodSelector: sel, ContainerNames: []string{kafkaContainer}, Action: IOFault,
		VolumePath: e.o.DataPath, Errno: errnoEIO, Methods: []string{"write", "fsync"}, Percent: 100}
	switch f.Params.DiskMode() {
	case generators.DiskENOSPC:
		spec.Errno = errnoENOSPC
	case generators.DiskReadEIO:
		spec.Methods = []string{"read"}
	}
	return Template{Type: TypeIOChaos, IOChaos: spec},
		append(notes, "the data volume is assumed mounted at "+e.o.DataPath+" in the kafka container (--data-path)"), nil
}
