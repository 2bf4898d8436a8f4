package config

import (
	"strings"
	"testing"
)

func TestParseBias(t *testing.T) {
	f := func(env map[string]string, args []string, want Bias, wantErr string) {
		t.Helper()
		c, err := Parse(args, func(name string) string { return env[name] })
		switch {
		case wantErr != "" && (err == nil || !strings.Contains(err.Error(), wantErr)):
			t.Errorf("Parse(%v, %v): got error %v, want one containing %q", env, args, err, wantErr)
		case wantErr == "" && err != nil:
			t.Errorf("Parse(%v, %v): got error %v, want none", env, args, err)
		case wantErr == "" && c.Bias != want:
			t.Errorf("Parse(%v, %v): got %+v, want %+v", env, args, c.Bias, want)
		}
	}
	f(nil, nil, Bias{}, "") // zero: the runner's defaults
	f(map[string]string{"VIGIL_BIAS_WORKERS": "4", "VIGIL_BIAS_QUEUE": "10", "VIGIL_BIAS_MAX_ROWS": "5000"}, nil,
		Bias{Workers: 4, Queue: 10, MaxRows: 5000}, "")
	f(map[string]string{"VIGIL_BIAS_WORKERS": "4"}, []string{"--bias-workers=8", "--bias-max-rows=100"}, Bias{Workers: 8, MaxRows: 100}, "")
	f(map[string]string{"VIGIL_BIAS_QUEUE": "many"}, nil, Bias{}, "VIGIL_BIAS_QUEUE")
	f(nil, []string{"--bias-max-rows=-1"}, Bias{}, "must not be negative")
}
