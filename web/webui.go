// Package webui is the web dashboard: a single-page app of static files
// (web/static: one HTML page, one style sheet, plain ES modules; no
// framework and no build step) embedded in the binary, and the two
// handlers the API role serves them with, outside /api/v1 like the share
// page: the index at / and the assets under /ui/<version>/. Every figure
// the app shows it reads from the REST API with the logged-in user's
// token, and the overview's from the live channel /dashboard/ws.
//
// It imports nothing of Vigil (only Fiber): the app package mounts it.
package webui

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"path"
	"sort"
	"strings"

	"github.com/gofiber/fiber/v2"
)

//go:embed static
var static embed.FS

// Prefix is where the assets are served: Prefix + version + "/" + path.
const Prefix = "/ui/"

// Policy is the Content-Security-Policy of the index and of every asset:
// scripts and styles from this server only (no inline script, no eval),
// API calls and the live channel to this server only, nothing framed.
const Policy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// immutable is the Cache-Control of a versioned asset: its URL changes
// whenever any asset's bytes do.
const immutable = "public, max-age=31536000, immutable"

// Site is the dashboard's files as served: the index, whose asset URLs
// carry the version, and each asset with its media type.
type Site struct {
	// Version is a digest of every asset's path and bytes.
	Version string
	index   []byte
	assets  map[string]asset
}

type asset struct {
	body []byte
	mime string
}

// New reads the embedded files and computes their version.
func New() (*Site, error) {
	s := &Site{assets: map[string]asset{}}
	var names []string
	err := fs.WalkDir(static, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		names = append(names, p)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("webui: list the assets: %w", err)
	}
	sort.Strings(names)
	sum := sha256.New()
	var index []byte
	for _, p := range names {
		body, err := static.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("webui: read %s: %w", p, err)
		}
		rel := strings.TrimPrefix(p, "static/")
		fmt.Fprintf(sum, "%s\x00%d\x00", rel, len(body))
		sum.Write(body)
		if rel == "index.html" {
			index = body
			continue
		}
		s.assets[rel] = asset{body: body, mime: mediaType(rel)}
	}
	if index == nil {
		return nil, fmt.Errorf("webui: no index.html")
	}
	s.Version = hex.EncodeToString(sum.Sum(nil))[:16]
	s.index = []byte(strings.ReplaceAll(string(index), "{{assets}}", Prefix+s.Version))
	return s, nil
}

// mediaType is the Content-Type of an asset by its extension; scripts are
// text/javascript, which module scripts need under nosniff.
func mediaType(name string) string {
	switch path.Ext(name) {
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	case ".svg":
		return "image/svg+xml"
	}
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t
	}
	return "application/octet-stream"
}

// headers sets what the index and the assets share.
func headers(c *fiber.Ctx, cache, contentType string) {
	c.Set(fiber.HeaderContentSecurityPolicy, Policy)
	c.Set(fiber.HeaderXFrameOptions, "DENY")
	c.Set("Referrer-Policy", "no-referrer")
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	c.Set(fiber.HeaderCacheControl, cache)
	c.Set(fiber.HeaderContentType, contentType)
}

// Index answers GET / with the app's page. It is asked again on every
// visit (no-cache), so that a new binary's assets are picked up at once.
func (s *Site) Index(c *fiber.Ctx) error {
	headers(c, "no-cache", fiber.MIMETextHTMLCharsetUTF8)
	return c.Send(s.index)
}

// Asset answers GET /ui/<version>/<path>: the asset, cached for a year
// (its URL changes with its bytes); 404 for an unknown path or another
// version, with the API's error envelope.
func (s *Site) Asset(c *fiber.Ctx) error {
	a, ok := s.assets[c.Params("*")]
	if !ok || c.Params("version") != s.Version {
		return fiber.ErrNotFound
	}
	headers(c, immutable, a.mime)
	return c.Send(a.body)
}
