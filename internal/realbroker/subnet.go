package realbroker

import "fmt"

// Subnet is the /24 of a run's bridge, laid out the same way by both
// providers: the host (the clients' side of every cut) at HostOctet, node
// n at NodeBase+n.
type Subnet struct {
	Prefix    string // the first three octets and a dot: "10.213.7."
	HostOctet int
	NodeBase  int
}

// HostIP is the host's address on the bridge.
func (s Subnet) HostIP() string { return fmt.Sprintf("%s%d", s.Prefix, s.HostOctet) }

// NodeIP is node id's address.
func (s Subnet) NodeIP(id int32) string { return fmt.Sprintf("%s%d", s.Prefix, s.NodeBase+int(id)) }

// PeerIP is node id's address, or the host's for ClientNode.
func (s Subnet) PeerIP(id int32) string {
	if id == ClientNode {
		return s.HostIP()
	}
	return s.NodeIP(id)
}
