package app

import (
	"context"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/processors/drafting"
	"github.com/vigilhq/vigil/processors/explaining"
)

// consumerLag is vigil_consumer_lag_records{group,kind,partition}: how
// many records of the event log each consumer group of the processor role
// has not committed yet (Kafka: a partition's high watermark less the
// group's committed offset; the embedded log: its end less the group's
// offset, one partition for every kind, kind "all"). Read at each scrape;
// while the log cannot answer, no series is given (vigil_engine_up says
// why).
type consumerLag struct {
	progress eventlog.Progress
	prefix   string // the groups' prefix on the log (Kafka's topic prefix)
	desc     *prometheus.Desc
}

// lagGroups are the processor role's consumer groups and the kinds each
// reads.
var lagGroups = []struct {
	name  string
	kinds []string
}{
	{processorGroup, nil},
	{drafting.Group, []string{eventlog.KindGovernance}},
	{explaining.Group, []string{eventlog.KindPrediction}},
}

func newConsumerLag(progress eventlog.Progress, prefix string) *consumerLag {
	return &consumerLag{progress: progress, prefix: prefix, desc: prometheus.NewDesc("vigil_consumer_lag_records",
		"Records of the event log a consumer group has not committed yet, by group, kind and partition.",
		[]string{"group", "kind", "partition"}, nil)}
}

// Describe implements prometheus.Collector.
func (l *consumerLag) Describe(ch chan<- *prometheus.Desc) { ch <- l.desc }

// Collect implements prometheus.Collector.
func (l *consumerLag) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), checkTimeout)
	defer cancel()
	for _, g := range lagGroups {
		end, err := l.progress.End(ctx, g.kinds...)
		if err != nil {
			return
		}
		committed, err := l.progress.Committed(ctx, l.prefix+g.name, g.kinds...)
		if err != nil {
			return
		}
		for p, off := range end {
			kind := p.Kind
			if kind == "" {
				kind = "all"
			}
			lag := max(off-committed[p], 0)
			ch <- prometheus.MustNewConstMetric(l.desc, prometheus.GaugeValue, float64(lag), g.name, kind,
				strconv.Itoa(int(p.Partition)))
		}
	}
}
