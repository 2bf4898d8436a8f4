package app

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// kserveEvent posts one of KServe's logger events: binary mode (ce-*
// headers, the payload as the body) or structured mode
// (application/cloudevents+json).
func (s *server) kserveEvent(key string, structured bool, attrs map[string]string, data string) response {
	s.t.Helper()
	var req *http.Request
	var err error
	if structured {
		ev := map[string]any{"specversion": "1.0", "datacontenttype": "application/json", "data": json.RawMessage(data)}
		for k, v := range attrs {
			ev[k] = v
		}
		b, _ := json.Marshal(ev)
		req, err = http.NewRequest("POST", s.base+"/kserve/events", bytes.NewReader(b))
		if err == nil {
			req.Header.Set("Content-Type", "application/cloudevents+json")
		}
	} else {
		req, err = http.NewRequest("POST", s.base+"/kserve/events", strings.NewReader(data))
		if err == nil {
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("ce-specversion", "1.0")
			for k, v := range attrs {
				req.Header.Set("ce-"+k, v)
			}
		}
	}
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	return s.send(req)
}

// kserveAttrs are an event's attributes as KServe's logger sets them.
func kserveAttrs(id, kind, service string) map[string]string {
	return map[string]string{"id": id, "type": "org.kubeflow.serving.inference." + kind,
		"source": "http://localhost:9081/", "inferenceservicename": service, "namespace": "default",
		"component": "predictor", "endpoint": "default"}
}

// TestKServePayloadLogging: KServe's request and response events, in
// binary and in structured mode and in either order, become one
// prediction each of the model named by the inference service (registered
// on first sight), its latency the time between their ce-time; a request
// that waits survives a restart (embedded) and pairs with its response
// after it; bad events answer 422. On both pipelines.
func TestKServePayloadLogging(t *testing.T) {
	eachPipeline(t, func(t *testing.T, s *server) {
		key, _ := s.key(s.admin(), "read", "write")
		req := kserveAttrs("ev-1", "request", "sklearn-iris")
		r := s.kserveEvent(key, false, req, `{"instances":[[6.8,2.8,4.8,1.4]]}`).want(t, 202)
		if r.at("paired") != false {
			t.Fatalf("got %s, want the request waiting", r.raw)
		}
		model := r.str("model_id")
		r = s.kserveEvent(key, false, kserveAttrs("ev-1", "response", "sklearn-iris"), `{"predictions":[1]}`).want(t, 202)
		if r.at("paired") != true || r.str("model_id") != model {
			t.Fatalf("got %s, want the pair logged for model %s", r.raw, model)
		}
		resp := kserveAttrs("ev-2", "response", "sklearn-iris")
		resp["time"] = "2026-01-01T00:00:00.250Z"
		s.kserveEvent(key, true, resp, `{"predictions":[2]}`).want(t, 202)
		req2 := kserveAttrs("ev-2", "request", "sklearn-iris")
		req2["time"] = "2026-01-01T00:00:00Z"
		if r := s.kserveEvent(key, true, req2, `{"instances":[[5.1,3.5,1.4,0.2]]}`).want(t, 202); r.at("paired") != true {
			t.Fatalf("got %s, want the response first, then its request, paired", r.raw)
		}
		ms := s.do("GET", "/models?search=sklearn-iris", key, nil).want(t, 200)
		if len(ms.list) != 1 || ms.list[0].(map[string]any)["id"] != model {
			t.Fatalf("got %s, want the model sklearn-iris registered once", ms.raw)
		}
		var p response
		waitFor(t, "the second pair's prediction", func() bool {
			p = s.do("GET", "/predictions/models/"+model+"/predictions/ev-2", key, nil)
			return p.status == 200
		})
		if lat, _ := p.at("latency_ms").(float64); !near(lat, 250) ||
			!strings.Contains(string(p.raw), `"instances":[[5.1,3.5,1.4,0.2]]`) || !strings.Contains(string(p.raw), `"predictions":[2]`) {
			t.Errorf("got %s, want the request as input, the response as output, 250 ms apart", p.raw)
		}
		waitFor(t, "the first pair's prediction", func() bool {
			return s.do("GET", "/predictions/models/"+model+"/predictions/ev-1", key, nil).status == 200
		})

		bad := kserveAttrs("ev-3", "request", "sklearn-iris")
		bad["type"] = "org.example.other"
		s.kserveEvent(key, false, bad, `{"instances":[]}`).wantField(t, "cloudevent")
		s.kserveEvent(key, false, kserveAttrs("ev-3", "request", "sklearn-iris"), `[1,2]`).wantField(t, "cloudevent")
		writer, _ := s.key(s.admin(), "predictions:write")
		s.kserveEvent(writer, false, kserveAttrs("ev-4", "request", "unregistered"), `{"instances":[]}`).
			wantError(t, 404, "MODEL_NOT_FOUND")
	})
}

// TestKServePairSurvivesRestart: a request waiting for its response is
// kept across a restart and pairs with the response sent after it; a
// request whose response never comes is set aside as a dead letter once
// VIGIL_KSERVE_PAIR_TIMEOUT has passed.
func TestKServePairSurvivesRestart(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			cfg := b.cfg(t)
			s := start(t, cfg)
			token := s.admin()
			s.kserveEvent(token, false, kserveAttrs("ev-r", "request", "restarted"), `{"instances":[[1]]}`).want(t, 202)
			s.shutdown()

			s = start(t, cfg)
			r := s.kserveEvent(token, false, kserveAttrs("ev-r", "response", "restarted"), `{"predictions":[1]}`).want(t, 202)
			if r.at("paired") != true {
				t.Fatalf("got %s, want the request kept across the restart and paired", r.raw)
			}
			s.shutdown()

			short := cfg
			short.KServePairTimeout = 200 * time.Millisecond
			s = start(t, short)
			s.kserveEvent(token, false, kserveAttrs("ev-lone", "request", "restarted"), `{"instances":[[2]]}`).want(t, 202)
			var dl response
			waitFor(t, "the lone request set aside", func() bool {
				dl = s.do("GET", "/dead-letters", token, nil).want(t, 200)
				return len(dl.list) == 1
			})
			d := dl.list[0].(map[string]any)
			if d["event_id"] != "ev-lone" || !strings.Contains(d["reason"].(string), "response did not come within 200ms") {
				t.Errorf("got %v, want ev-lone set aside for its missing response", d)
			}
		})
	}
}
