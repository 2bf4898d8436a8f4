package kafka

import (
	"context"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/vigilhq/vigil/eventlog"
)

// Progress reads the event log's high watermarks and a consumer group's
// committed offsets through the admin API. It implements
// eventlog.Progress; its errors wrap eventlog.ErrUnavailable.
type Progress struct {
	adm    *kadm.Client
	prefix string
}

var _ eventlog.Progress = (*Progress)(nil)

// NewProgress reads progress through cl (which it does not close) on the
// topics named with prefix (DefaultPrefix when empty).
func NewProgress(cl *kgo.Client, prefix string) *Progress {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	return &Progress{adm: kadm.NewClient(cl), prefix: prefix}
}

// End implements eventlog.Progress: every partition's high watermark, the
// offset after the last record acknowledged by every in-sync replica. A
// topic that does not exist yet has no partitions.
func (p *Progress) End(ctx context.Context, kinds ...string) (eventlog.Offsets, error) {
	topics, kindOf := p.topics(kinds)
	listed, err := p.adm.ListEndOffsets(ctx, topics...)
	if err != nil {
		return nil, fmt.Errorf("kafka: list end offsets: %w: %w", eventlog.ErrUnavailable, err)
	}
	end := eventlog.Offsets{}
	var errs []error
	listed.Each(func(o kadm.ListedOffset) {
		switch {
		case errors.Is(o.Err, kerr.UnknownTopicOrPartition):
		case o.Err != nil:
			errs = append(errs, fmt.Errorf("%s/%d: %w", o.Topic, o.Partition, o.Err))
		default:
			end[eventlog.Partition{Kind: kindOf[o.Topic], Partition: o.Partition}] = o.Offset
		}
	})
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("kafka: list end offsets: %w: %w", eventlog.ErrUnavailable, err)
	}
	return end, nil
}

// Committed implements eventlog.Progress: group's committed offsets on the
// topics of kinds; a partition the group never committed is left out.
func (p *Progress) Committed(ctx context.Context, group string, kinds ...string) (eventlog.Offsets, error) {
	_, kindOf := p.topics(kinds)
	resp, err := p.adm.FetchOffsets(ctx, group)
	if err == nil {
		err = resp.Error()
	}
	if err != nil {
		return nil, fmt.Errorf("kafka: fetch %s's offsets: %w: %w", group, eventlog.ErrUnavailable, err)
	}
	committed := eventlog.Offsets{}
	resp.Each(func(o kadm.OffsetResponse) {
		if kind, ok := kindOf[o.Topic]; ok && o.At >= 0 {
			committed[eventlog.Partition{Kind: kind, Partition: o.Partition}] = o.At
		}
	})
	return committed, nil
}

// topics returns the topics of kinds (every kind when none) and the kind
// of each topic.
func (p *Progress) topics(kinds []string) ([]string, map[string]string) {
	if len(kinds) == 0 {
		kinds = eventlog.Kinds
	}
	topics := make([]string, len(kinds))
	kindOf := make(map[string]string, len(kinds))
	for i, k := range kinds {
		topics[i] = Topic(p.prefix, k)
		kindOf[topics[i]] = k
	}
	return topics, kindOf
}
