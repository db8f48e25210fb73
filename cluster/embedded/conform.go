package embedded

import (
	"slices"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// conform answers, the way Kafka does, the requests kfake answers
// differently where a client depends on the difference (see doc.go); every
// other request goes on to kfake (handled=false).
func conform(fake *kfake.Cluster, req kmsg.Request, node int32) (kmsg.Response, error, bool) {
	if r, ok := req.(*kmsg.OffsetFetchRequest); ok && unknownGroups(fake, r, node) {
		return noOffsets(r), nil, true
	}
	return nil, nil, false
}

// fetchedGroups names the groups an OffsetFetch asks about: one before v8,
// any number from v8.
func fetchedGroups(r *kmsg.OffsetFetchRequest) []string {
	if r.Version <= 7 {
		return []string{r.Group}
	}
	gs := make([]string, 0, len(r.Groups))
	for _, g := range r.Groups {
		gs = append(gs, g.Group)
	}
	return gs
}

// unknownGroups reports whether node coordinates every group r asks about
// and none of them exists: kfake would answer GROUP_ID_NOT_FOUND, Kafka
// answers "no offset". Anything else (a group that exists, a wrong
// coordinator, a mix) is kfake's to answer. kfake's state is read while the
// request sleeps: the cluster serves those reads between requests, and a
// control must not block it.
func unknownGroups(fake *kfake.Cluster, r *kmsg.OffsetFetchRequest, node int32) bool {
	groups := fetchedGroups(r)
	// Buffered: a cluster closing ends the sleep before the reads do.
	res := make(chan bool, 1)
	fake.SleepControl(func() {
		res <- !slices.ContainsFunc(groups, func(g string) bool {
			return fake.CoordinatorFor(g) != node || fake.GroupInfo(g) != nil
		})
	})
	select {
	case unknown := <-res:
		return unknown && len(groups) > 0
	default:
		return false
	}
}

// noOffsets is Kafka's answer to an OffsetFetch for groups that do not
// exist: every partition asked for at offset -1, no error; nothing when it
// asked for all topics.
func noOffsets(r *kmsg.OffsetFetchRequest) *kmsg.OffsetFetchResponse {
	resp := r.ResponseKind().(*kmsg.OffsetFetchResponse)
	if r.Version <= 7 {
		for _, t := range r.Topics {
			rt := kmsg.NewOffsetFetchResponseTopic()
			rt.Topic = t.Topic
			for _, p := range t.Partitions {
				rp := kmsg.NewOffsetFetchResponseTopicPartition()
				rp.Partition, rp.Offset, rp.LeaderEpoch = p, -1, -1
				rt.Partitions = append(rt.Partitions, rp)
			}
			resp.Topics = append(resp.Topics, rt)
		}
		return resp
	}
	for _, g := range r.Groups {
		rg := kmsg.NewOffsetFetchResponseGroup()
		rg.Group = g.Group
		for _, t := range g.Topics {
			rt := kmsg.NewOffsetFetchResponseGroupTopic()
			rt.Topic, rt.TopicID = t.Topic, t.TopicID
			for _, p := range t.Partitions {
				rp := kmsg.NewOffsetFetchResponseGroupTopicPartition()
				rp.Partition, rp.Offset, rp.LeaderEpoch = p, -1, -1
				rt.Partitions = append(rt.Partitions, rp)
			}
			rg.Topics = append(rg.Topics, rt)
		}
		resp.Groups = append(resp.Groups, rg)
	}
	return resp
}
