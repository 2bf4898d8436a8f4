package kserve

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"mime"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/vigilhq/vigil/platform/web"
)

// The CloudEvents types of KServe's logger.
const (
	TypeRequest  = "org.kubeflow.serving.inference.request"
	TypeResponse = "org.kubeflow.serving.inference.response"
)

// Event is one CloudEvent of KServe's logger, the attributes Vigil reads.
type Event struct {
	ID     string
	Type   string
	Source string
	// Service is the inferenceservicename extension; Namespace,
	// Component and Endpoint KServe's other extensions.
	Service, Namespace, Component, Endpoint string
	// Time is the event's time attribute; zero when it has none.
	Time time.Time
	// Data is the payload: a JSON object.
	Data json.RawMessage
}

// Header reads one header of a request.
type Header func(name string) string

// Parse reads an event in binary mode (ce-* headers, the payload as the
// body) or, when contentType is application/cloudevents+json, in
// structured mode (the attributes and data in one JSON object, data or
// data_base64).
func Parse(contentType string, h Header, body []byte) (Event, error) {
	mt, _, _ := mime.ParseMediaType(contentType)
	var e Event
	if strings.EqualFold(mt, "application/cloudevents+json") {
		var s struct {
			SpecVersion string          `json:"specversion"`
			ID          string          `json:"id"`
			Type        string          `json:"type"`
			Source      string          `json:"source"`
			Time        *string         `json:"time"`
			Service     string          `json:"inferenceservicename"`
			Namespace   string          `json:"namespace"`
			Component   string          `json:"component"`
			Endpoint    string          `json:"endpoint"`
			ContentType string          `json:"datacontenttype"`
			Data        json.RawMessage `json:"data"`
			DataBase64  string          `json:"data_base64"`
		}
		if err := json.Unmarshal(body, &s); err != nil {
			return e, fmt.Errorf("a structured CloudEvent must be a JSON object: %w", err)
		}
		if s.SpecVersion != "1.0" {
			return e, fmt.Errorf("specversion %q: want 1.0", s.SpecVersion)
		}
		e = Event{ID: s.ID, Type: s.Type, Source: s.Source, Service: s.Service, Namespace: s.Namespace,
			Component: s.Component, Endpoint: s.Endpoint, Data: s.Data}
		if s.DataBase64 != "" {
			b, err := base64.StdEncoding.DecodeString(s.DataBase64)
			if err != nil {
				return e, fmt.Errorf("data_base64: %w", err)
			}
			e.Data = b
		}
		if s.Time != nil && *s.Time == "" {
			return e, fmt.Errorf("time: an RFC 3339 date-time, or left out")
		}
		if s.Time != nil {
			if err := e.setTime(*s.Time); err != nil {
				return e, err
			}
		}
	} else {
		if v := h("ce-specversion"); v != "1.0" {
			return e, fmt.Errorf("ce-specversion %q: want 1.0 (binary mode needs the ce-* headers)", v)
		}
		e = Event{ID: h("ce-id"), Type: h("ce-type"), Source: h("ce-source"), Service: h("ce-inferenceservicename"),
			Namespace: h("ce-namespace"), Component: h("ce-component"), Endpoint: h("ce-endpoint"), Data: body}
		if err := e.setTime(h("ce-time")); err != nil {
			return e, err
		}
	}
	return e, e.check()
}

func (e *Event) setTime(s string) error {
	if s == "" {
		return nil
	}
	var v web.Problems
	t := v.Time("time", &s)
	if v.Err() != nil {
		return fmt.Errorf("time %q is not an RFC 3339 date-time", s)
	}
	e.Time = t.UTC()
	return nil
}

// check tells what is wrong with an event.
func (e Event) check() error {
	switch {
	case e.ID == "" || utf8.RuneCountInString(e.ID) > 200:
		return fmt.Errorf("id: 1-200 characters are required")
	case e.Type != TypeRequest && e.Type != TypeResponse:
		return fmt.Errorf("type %q: want %s or %s", e.Type, TypeRequest, TypeResponse)
	case e.Source == "":
		return fmt.Errorf("source is required")
	case utf8.RuneCountInString(e.Service) > 255 || utf8.RuneCountInString(e.Source) > 255:
		return fmt.Errorf("source and inferenceservicename: at most 255 characters")
	}
	d := bytes.TrimSpace(e.Data)
	if len(d) == 0 || d[0] != '{' || !json.Valid(d) {
		return fmt.Errorf("data: the payload must be a JSON object")
	}
	for _, s := range []string{e.ID, e.Source, e.Service, e.Namespace, e.Component, e.Endpoint} {
		if strings.IndexByte(s, 0) >= 0 {
			return fmt.Errorf("attributes must not hold NUL")
		}
	}
	return nil
}

// ModelName is the name of the model an event is logged for: its
// inferenceservicename extension (KServe's logger sets it to the
// InferenceService's name), else its source as it is.
func (e Event) ModelName() string {
	if e.Service != "" {
		return e.Service
	}
	return e.Source
}
