package toxicity

import (
	"context"
	"regexp"
	"strings"
)

// Builtin is a lexicon scorer that needs nothing installed: each head has
// weighted patterns, and a head's score is the noisy-or of the weights of
// the patterns the text matches, 1 − Π(1 − w). It reads words, not
// meaning: negation, quotation and irony fool it, and it knows English
// only. docs/llm.md prints its precision and recall per head on the
// labelled set in testdata.
type Builtin struct{}

// Name implements Scorer.
func (Builtin) Name() string { return "builtin-lexicon-v1" }

// term is one weighted pattern of a head.
type term struct {
	re *regexp.Regexp
	w  float64
}

// words makes terms of whole words or phrases, each of weight w.
func words(w float64, list ...string) []term {
	out := make([]term, len(list))
	for i, s := range list {
		out[i] = term{regexp.MustCompile(`\b(?:` + s + `)\b`), w}
	}
	return out
}

var groups = `(?:muslims|jews|christians|gays|lesbians|women|men|immigrants|blacks|whites|asians|mexicans|arabs|foreigners|trans people|atheists|catholics)`

// lexicon holds each head's terms.
var lexicon = map[string][]term{
	"obscene": words(0.7, `fuck\w*`, `f\*+k\w*`, `shit\w*`, `bullshit`, `bitch\w*`, `asshole\w*`, `cunt\w*`, `dick\w*`,
		`cock\w*`, `motherfuck\w*`, `wank\w*`, `bastards?`, `piss(?:ed)? off`),
	"insult": append(words(0.6, `idiots?`, `stupid`, `morons?`, `moronic`, `losers?`, `dumb(?:ass)?`, `pathetic`, `worthless`,
		`imbeciles?`, `clowns?`, `retards?`, `useless`, `ignorant`, `scum`, `trash`, `garbage`, `brainless`, `fool`,
		`incompetent`, `disgusting`, `ugly`, `fat pig`, `jerk`),
		words(0.5, `you are (?:a|an) \w+`, `shut up`)...),
	"threat": words(0.75, `(?:kill|murder|hurt|beat|shoot|stab|destroy|find) you`, `you(?:'ll| will) (?:die|regret|pay)`,
		`(?:going to|gonna|will) (?:kill|hurt|beat|shoot|stab|burn)`, `watch your back`, `i know where you live`,
		`wish you (?:were )?dead`, `hope you die`, `break your \w+`),
	"identity_attack": append(words(0.8, groups+` (?:are|is) (?:all )?(?:animals|terrorists|criminals|inferior|evil|disgusting|vermin|subhuman|the problem|stupid|filth)`,
		`go back to (?:your|where you)`, `(?:hate|ban|deport) (?:all )?`+groups),
		words(0.4, `(?:all|those|these) `+groups)...),
}

// Score implements Scorer.
func (Builtin) Score(_ context.Context, text string) (Scores, error) {
	t := strings.ToLower(text)
	s := Scores{}
	for head, terms := range lexicon {
		keep := 1.0
		for _, x := range terms {
			if x.re.MatchString(t) {
				keep *= 1 - x.w
			}
		}
		s[head] = 1 - keep
	}
	// Toxicity is any of the others; severe toxicity is two of them
	// together, or a threat, at strength.
	keep, strong := 1.0, 0
	for _, h := range []string{"obscene", "insult", "threat", "identity_attack"} {
		keep *= 1 - s[h]
		if s[h] >= DefaultThreshold {
			strong++
		}
	}
	s["toxicity"] = 1 - keep
	switch {
	case strong >= 2 || s["threat"] >= DefaultThreshold:
		s["severe_toxicity"] = s["toxicity"] * 0.9
	default:
		s["severe_toxicity"] = s["toxicity"] * 0.3
	}
	return s, nil
}
