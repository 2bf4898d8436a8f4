package query

import (
	"maps"
	"slices"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/web"
)

// Aggregations are the ways a metric's values are summed up, by name.
var aggregations = map[string]func(analytics.Summary) *float64{
	"avg": func(s analytics.Summary) *float64 {
		if s.Count == 0 {
			return nil
		}
		v := s.Sum / float64(s.Count)
		return &v
	},
	"min": func(s analytics.Summary) *float64 { return ifAny(s, s.Min) },
	"max": func(s analytics.Summary) *float64 { return ifAny(s, s.Max) },
	"sum": func(s analytics.Summary) *float64 { return ifAny(s, s.Sum) },
	"count": func(s analytics.Summary) *float64 {
		v := float64(s.Count)
		return &v
	},
}

func ifAny(s analytics.Summary, v float64) *float64 {
	if s.Count == 0 {
		return nil
	}
	return &v
}

// timeWindows are the time_window values of GET /metrics/aggregate.
var timeWindows = map[string]time.Duration{"1h": time.Hour, "24h": 24 * time.Hour, "7d": 7 * 24 * time.Hour, "30d": 30 * 24 * time.Hour}

// intervals are the interval values of GET /metrics/trend.
var intervals = map[string]time.Duration{"hour": time.Hour, "day": 24 * time.Hour}

// oneOf reads the query parameter name, def when absent, and checks it is
// a key of allowed.
func oneOf[V any](c *fiber.Ctx, v *web.Problems, name, def string, allowed map[string]V) (string, V) {
	s := v.EnumQuery(c, name, def, slices.Sorted(maps.Keys(allowed))...)
	v.Required(name, s) // absent without a default
	return s, allowed[s]
}

// aggregateResponse is GET /metrics/aggregate.
type aggregateResponse struct {
	ModelID     string   `json:"model_id"`
	MetricType  string   `json:"metric_type"`
	Aggregation string   `json:"aggregation"`
	TimeWindow  string   `json:"time_window"`
	Value       *float64 `json:"value"`
	DataPoints  int64    `json:"data_points"`
	Period      period   `json:"period"`
}

// aggregate answers GET /metrics/aggregate: one aggregation of a metric's
// values over a period. The period ends at end_date, or time_window after
// start_date, or now; it starts at start_date, or time_window before its
// end.
func (a *API) aggregate(c *fiber.Ctx) error {
	var v web.Problems
	f := a.metricFilter(c, &v)
	agg, fn := oneOf(c, &v, "aggregation", "", aggregations)
	window, width := oneOf(c, &v, "time_window", "", timeWindows)
	r := a.period(c, &v, width)
	if err := v.Err(); err != nil {
		return err
	}
	if err := a.model(c, f.ModelID); err != nil {
		return err
	}
	f.Range = r
	ss, err := a.Store.MetricSeries(c.UserContext(), f, analytics.Buckets{Range: r})
	if err != nil {
		return err
	}
	var s analytics.Summary
	if len(ss) == 1 {
		s = ss[0]
	}
	return c.JSON(aggregateResponse{ModelID: f.ModelID, MetricType: f.MetricType, Aggregation: agg, TimeWindow: window,
		Value: fn(s), DataPoints: s.Count, Period: period{r.From, r.To}})
}

// trendPoint is one bucket of GET /metrics/trend.
type trendPoint struct {
	Timestamp  time.Time `json:"timestamp"`
	Value      *float64  `json:"value"`
	DataPoints int64     `json:"data_points"`
}

// trendResponse is GET /metrics/trend.
type trendResponse struct {
	ModelID     string       `json:"model_id"`
	MetricType  string       `json:"metric_type"`
	Interval    string       `json:"interval"`
	Aggregation string       `json:"aggregation"`
	Period      period       `json:"period"`
	Data        []trendPoint `json:"data"`
}

// trend answers GET /metrics/trend: a metric's values of the last days,
// aggregated per UTC hour or day; buckets without values are left out.
func (a *API) trend(c *fiber.Ctx) error {
	var v web.Problems
	f := a.metricFilter(c, &v)
	interval, width := oneOf(c, &v, "interval", "day", intervals)
	agg, fn := oneOf(c, &v, "aggregation", "avg", aggregations)
	days, err := web.IntQuery(c, "days", 7, 1, 365)
	if err != nil {
		v.Add("days", "must be an integer between 1 and 365")
	}
	if err := v.Err(); err != nil {
		return err
	}
	if err := a.model(c, f.ModelID); err != nil {
		return err
	}
	now := a.Clock.Now()
	f.Range = analytics.Range{From: now.Add(-time.Duration(days) * 24 * time.Hour).Truncate(width), To: now}
	ss, err := a.Store.MetricSeries(c.UserContext(), f, analytics.Buckets{Range: f.Range, Width: width})
	if err != nil {
		return err
	}
	data := make([]trendPoint, len(ss))
	for i, s := range ss {
		data[i] = trendPoint{Timestamp: s.Start, Value: fn(s), DataPoints: s.Count}
	}
	return c.JSON(trendResponse{ModelID: f.ModelID, MetricType: f.MetricType, Interval: interval, Aggregation: agg,
		Period: period{f.Range.From, f.Range.To}, Data: data})
}

// metricFilter reads the required model_id and metric_type.
func (a *API) metricFilter(c *fiber.Ctx, v *web.Problems) analytics.MetricFilter {
	f := analytics.MetricFilter{OrgID: identity.OrgID(c), ModelID: c.Query("model_id"), MetricType: c.Query("metric_type")}
	v.Required("model_id", f.ModelID)
	v.Required("metric_type", f.MetricType)
	return f
}

// period reads start_date and end_date around a window of width: either
// missing is width from the other, both missing end now.
func (a *API) period(c *fiber.Ctx, v *web.Problems, width time.Duration) analytics.Range {
	r := dateParams.parse(v, web.Query(c, "start_date"), web.Query(c, "end_date"))
	switch {
	case r.To.IsZero() && !r.From.IsZero():
		r.To = r.From.Add(width)
	case r.To.IsZero():
		r.To = a.Clock.Now()
	}
	if r.From.IsZero() {
		r.From = r.To.Add(-width)
	}
	dateParams.ordered(v, r)
	return r
}
