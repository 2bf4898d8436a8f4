package web

import "testing"

func TestIsJSON(t *testing.T) {
	for ct, want := range map[string]bool{
		"application/json":                  true,
		"application/json; charset=utf-8":   true,
		"Application/JSON ; charset=UTF-8":  true,
		" application/json":                 true,
		"application/vnd.vigil+json":        true,
		"application/problem+JSON; q=1":     true,
		"application/+json":                 false,
		"application/jsonx":                 false,
		"application/x-www-form-urlencoded": false,
		"text/plain":                        false,
		"text/json":                         false,
		"multipart/form-data; boundary=x":   false,
		"application/json-seq":              false,
		"application/x-ndjson":              false,
		"application":                       false,
		"json":                              false,
	} {
		if got := isJSON([]byte(ct)); got != want {
			t.Errorf("%q: got %t, want %t", ct, got, want)
		}
	}
}
