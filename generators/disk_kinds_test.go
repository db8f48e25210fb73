package generators

import (
	"fmt"
	"testing"
	"time"
)

// The disk kinds' parameters: a mode only for disk-fault, the replicas
// target only for power-loss, targets each kind can act on; a scenario
// with one of them asks for lazy disks, others do not.
func TestValidateDiskFaults(t *testing.T) {
	cases := []struct {
		kind   string
		params FaultParams
		want   string // "" when valid
	}{
		{KindPowerLoss, FaultParams{}, ""},
		{KindPowerLoss, FaultParams{Target: TargetReplicas}, ""},
		{KindPowerLoss, FaultParams{Target: "one"}, ""},
		{KindPowerLoss, FaultParams{Target: "controller"}, `params.target: "controller": power-loss takes one of [one leader replicas all]`},
		{KindPowerLoss, FaultParams{Disk: DiskEIO}, "params.disk: only disk-fault reads it"},
		{KindPowerLoss, FaultParams{Nodes: []int32{1}}, "params.nodes: power-loss picks its brokers by params.target"},
		{KindDiskFault, FaultParams{}, ""},
		{KindDiskFault, FaultParams{Disk: DiskENOSPC, Target: "leader"}, ""},
		{KindDiskFault, FaultParams{Disk: DiskReadEIO}, ""},
		{KindDiskFault, FaultParams{Disk: "slow"}, `params.disk: "slow" is not one of [eio enospc read-eio]`},
		{KindDiskFault, FaultParams{Target: "all"}, `params.target: "all": disk-fault takes one of [one leader]`},
		{KindDiskFault, FaultParams{Target: TargetReplicas}, `params.target: "replicas": disk-fault takes one of [one leader]`},
		{KindKill, FaultParams{Target: TargetReplicas}, "params.target: replicas is a power-loss target"},
		{KindKill, FaultParams{Disk: DiskEIO}, "params.disk: only disk-fault reads it"},
	}
	for _, c := range cases {
		s := sample()
		s.Cluster.Provider = "local"
		s.Nemesis = []Fault{{Kind: c.kind, Start: Duration(time.Second), Duration: Duration(time.Second), Params: c.params}}
		if c.want != "" {
			c.want = "nemesis[0]." + c.want
		}
		checkValidation(t, fmt.Sprintf("%s %+v", c.kind, c.params), s, c.want)
		if got, want := s.LazyDisks(), isDiskKind(c.kind); got != want {
			t.Errorf("%s: LazyDisks() = %v, want %v", c.kind, got, want)
		}
	}
}

func TestDiskDefaults(t *testing.T) {
	var p FaultParams
	if p.DiskTarget(KindPowerLoss) != "all" || p.DiskTarget(KindDiskFault) != "one" || p.DiskMode() != DiskEIO {
		t.Errorf("defaults: power-loss %s, disk-fault %s, mode %s; want all, one, eio",
			p.DiskTarget(KindPowerLoss), p.DiskTarget(KindDiskFault), p.DiskMode())
	}
}
