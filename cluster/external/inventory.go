package external

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// HarmAllowed is the value of the inventory's harm field that lets the
// provider break the cluster: without it, Load refuses the inventory.
const HarmAllowed = "allowed"

// Inventory is the user's cluster as an inventory file describes it:
// YAML, or JSON (which YAML reads as well).
type Inventory struct {
	// Harm must be HarmAllowed: the provider kills, pauses and cuts the
	// brokers it is given, so a file must say so explicitly.
	Harm string `yaml:"harm"`
	// Bootstrap is the clients' bootstrap.servers (host:port each).
	Bootstrap []string `yaml:"bootstrap"`
	// KnownHosts is an OpenSSH known_hosts file, relative to the
	// inventory, that the hosts' keys are checked against.
	KnownHosts string `yaml:"known-hosts"`
	// InsecureIgnoreHostKey accepts any host key instead: anyone between
	// the harness and a host can then impersonate it. Discouraged.
	InsecureIgnoreHostKey bool   `yaml:"insecure-ignore-host-key"`
	Hosts                 []Host `yaml:"hosts"`

	path  string         // the file it was read from
	lines map[string]int // line of each top-level field
}

// Host is one machine of the cluster running one Kafka node.
type Host struct {
	// Address is the SSH address, host or host:port (port 22 by default).
	Address string `yaml:"address"`
	User    string `yaml:"user"`
	// Key is the SSH private key file (relative to the inventory, or
	// starting with ~/). Passwords are never read from an inventory.
	Key string `yaml:"key"`
	// NodeID is the node.id of the Kafka node on the host.
	NodeID *int32 `yaml:"node-id"`
	// Roles are the node's process.roles: broker, controller or both;
	// empty means broker.
	Roles []string `yaml:"roles"`
	// Broker is the broker's client listener (host:port), for a node with
	// the broker role.
	Broker string `yaml:"broker"`
	// Unit is the node's systemd unit; it stands for Start, Stop and Find
	// where those are empty.
	Unit string `yaml:"systemd-unit"`
	// Start and Stop are shell commands that start the node and stop it
	// cleanly; Find prints the pid of its process (nothing when it does
	// not run).
	Start string `yaml:"start"`
	Stop  string `yaml:"stop"`
	Find  string `yaml:"find"`
	// DataDir and LogDir are the node's log.dirs and its log4j output
	// directory (where server.log is), for the errors a failed restart
	// reports.
	DataDir string `yaml:"data-dir"`
	LogDir  string `yaml:"log-dir"`
	// Password exists only to be refused with a clear error.
	Password string `yaml:"password"`

	line  int
	lines map[string]int
}

// UnmarshalYAML records the line of the host and of each of its fields,
// for errors.
func (h *Host) UnmarshalYAML(v *yaml.Node) error {
	type plain Host
	for i := 0; i+1 < len(v.Content); i += 2 {
		if k := v.Content[i]; !slices.Contains(hostFields(), k.Value) {
			return fmt.Errorf("line %d: field %s not found in a host (want %s)", k.Line, k.Value, strings.Join(hostFields(), ", "))
		}
	}
	if err := v.Decode((*plain)(h)); err != nil {
		return err
	}
	h.line, h.lines = v.Line, fieldLines(v)
	return nil
}

// hostFields are the fields a host may have: a node decoded in a custom
// unmarshaler does not inherit the decoder's check of unknown fields.
func hostFields() []string {
	var names []string
	t := reflect.TypeFor[Host]()
	for i := range t.NumField() {
		if tag := t.Field(i).Tag.Get("yaml"); tag != "" {
			names = append(names, tag)
		}
	}
	return names
}

// fieldLines maps each key of mapping node v to its line.
func fieldLines(v *yaml.Node) map[string]int {
	lines := map[string]int{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		lines[v.Content[i].Value] = v.Content[i].Line
	}
	return lines
}

// Load reads and validates the inventory at path.
func Load(path string) (*Inventory, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("inventory: %w", err)
	}
	return Parse(path, b)
}

// Parse reads and validates an inventory's content b; path names it in
// errors and anchors its relative file names.
func Parse(path string, b []byte) (*Inventory, error) {
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&root); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	inv := &Inventory{path: path, lines: map[string]int{}}
	if len(root.Content) == 1 {
		inv.lines = fieldLines(root.Content[0])
	}
	dec = yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(inv); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return inv, inv.validate()
}

// errAt is an error naming the inventory, the line and the field.
func (inv *Inventory) errAt(line int, field, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s: %s", inv.path, line, field, fmt.Sprintf(format, args...))
}

// top is the error for a top-level field (line 1 when it is missing).
func (inv *Inventory) top(field, format string, args ...any) error {
	return inv.errAt(max(inv.lines[field], 1), field, format, args...)
}

func (inv *Inventory) validate() error {
	if inv.Harm != HarmAllowed {
		return inv.top("harm", "is %q: the external provider kills, pauses and cuts off the brokers it is given; "+
			"write `harm: %s` in the inventory to allow it on this cluster", inv.Harm, HarmAllowed)
	}
	if len(inv.Bootstrap) == 0 {
		return inv.top("bootstrap", "is empty (want the clients' bootstrap servers, host:port each)")
	}
	for i, s := range inv.Bootstrap {
		if _, _, err := net.SplitHostPort(s); err != nil {
			return inv.top("bootstrap", "[%d] %q: want host:port", i, s)
		}
	}
	switch {
	case inv.KnownHosts == "" && !inv.InsecureIgnoreHostKey:
		return inv.top("known-hosts", "is empty: name a known_hosts file holding the hosts' keys "+
			"(insecure-ignore-host-key: true accepts any key, and anyone in between with it)")
	case inv.KnownHosts != "" && inv.InsecureIgnoreHostKey:
		return inv.top("insecure-ignore-host-key", "is true while known-hosts is set: choose one")
	}
	if len(inv.Hosts) == 0 {
		return inv.top("hosts", "is empty (want one entry per Kafka node)")
	}
	ids := map[int32]int{}
	brokers := 0
	for i := range inv.Hosts {
		h := &inv.Hosts[i]
		if err := inv.validateHost(i, h); err != nil {
			return err
		}
		if j, dup := ids[*h.NodeID]; dup {
			return inv.hostErr(i, h, "node-id", "%d is hosts[%d]'s too", *h.NodeID, j)
		}
		ids[*h.NodeID] = i
		if h.IsBroker() {
			brokers++
		}
	}
	if brokers == 0 {
		return inv.top("hosts", "no host has the broker role")
	}
	return nil
}

// hostErr is an error about field of hosts[i].
func (inv *Inventory) hostErr(i int, h *Host, field, format string, args ...any) error {
	line := h.lines[field]
	if line == 0 {
		line = h.line
	}
	return inv.errAt(line, fmt.Sprintf("hosts[%d].%s", i, field), format, args...)
}

func (inv *Inventory) validateHost(i int, h *Host) error {
	switch {
	case h.Password != "":
		return inv.hostErr(i, h, "password", "passwords are never read from an inventory: give an SSH key file (key)")
	case h.Address == "":
		return inv.hostErr(i, h, "address", "is empty (want the host's SSH address, host or host:port)")
	case h.User == "":
		return inv.hostErr(i, h, "user", "is empty (want the SSH user)")
	case h.Key == "":
		return inv.hostErr(i, h, "key", "is empty (want an SSH private key file)")
	case h.NodeID == nil:
		return inv.hostErr(i, h, "node-id", "is missing (want the node.id of the host's Kafka node)")
	}
	for _, r := range h.Roles {
		if r != "broker" && r != "controller" {
			return inv.hostErr(i, h, "roles", "%q: want broker or controller", r)
		}
	}
	if h.IsBroker() {
		if _, _, err := net.SplitHostPort(h.Broker); err != nil {
			return inv.hostErr(i, h, "broker", "%q: want the broker's client listener, host:port", h.Broker)
		}
	}
	if h.Unit == "" && h.Find == "" {
		return inv.hostErr(i, h, "find", "is empty and there is no systemd-unit: the node's process cannot be found")
	}
	if h.Unit == "" && h.Start == "" {
		return inv.hostErr(i, h, "start", "is empty and there is no systemd-unit: a killed node cannot be started again")
	}
	return nil
}

// IsBroker reports whether the host's node has the broker role.
func (h Host) IsBroker() bool {
	return len(h.Roles) == 0 || strings.Contains(strings.Join(h.Roles, ","), "broker")
}

// sshAddr is the host's address with its SSH port.
func (h Host) sshAddr() string {
	if _, _, err := net.SplitHostPort(h.Address); err == nil {
		return h.Address
	}
	return net.JoinHostPort(h.Address, "22")
}

// sshPort is the port the host's sshd listens on.
func (h Host) sshPort() int {
	_, port, _ := net.SplitHostPort(h.sshAddr())
	n, _ := strconv.Atoi(port)
	return n
}

// file resolves name as the inventory names files: relative to its
// directory, or to the home directory after ~/.
func (inv *Inventory) file(name string) string {
	if rest, ok := strings.CutPrefix(name, "~/"); ok {
		home, _ := os.UserHomeDir()
		return filepath.Join(home, rest)
	}
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(filepath.Dir(inv.path), name)
}
