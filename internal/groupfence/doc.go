// Package groupfence fences a "crashed" member of a KIP-848 consumer group
// (group.protocol=consumer) at its coordinator, for the providers'
// client.MemberFencer: the members whose client.id is the crashed
// process's are found by ConsumerGroupDescribe and made to leave with a
// ConsumerGroupHeartbeat of member epoch -1 sent for their member ids, as
// the member itself would on a clean close; from then on the coordinator
// refuses the crashed client's commits and heartbeats (UNKNOWN_MEMBER_ID),
// so the client torn down right after commits nothing on its way out.
//
// The classic protocol's fence (an admin LeaveGroup by member id) stays
// with each provider. This package must not know providers, clients or
// histories: it speaks the Kafka protocol through a franz-go client it is
// given.
package groupfence
