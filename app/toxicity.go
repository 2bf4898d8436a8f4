package app

import (
	"time"

	"github.com/vigilhq/vigil/toxicity"
)

// toxicityAPI is POST /llm/toxicity with the configured scorer: the
// built-in lexicon, or an HTTP scorer whose target passes the outbound
// guard. Its Checker also checks the sampled completions on arrival.
func (a *App) toxicityAPI() (*toxicity.API, error) {
	c := &toxicity.Checker{Scorer: toxicity.Builtin{}, SampleRate: float64(a.cfg.Toxicity.SamplePercent) / 100}
	if t := a.cfg.Toxicity; t.URL != "" {
		guard, err := a.outboundGuard()
		if err != nil {
			return nil, err
		}
		h, err := toxicity.NewHTTP(guard, t.URL, t.Format, t.Key, 10*time.Second)
		if err != nil {
			return nil, err
		}
		c.Scorer = h
	}
	return &toxicity.API{Checker: c, Completions: a.analytics}, nil
}
