package query

import (
	"bytes"
	"fmt"
	"iter"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/query/tabular"
)

// outputFormat picks the format of an answer: the format query parameter
// wins over the Accept header, and JSON is the default. An unknown format
// is recorded in v, to answer 422 with the request's other problems; an
// Accept header that allows no format answers 406 at once.
func outputFormat(c *fiber.Ctx, v *web.Problems) (tabular.Format, error) {
	if name := v.EnumQuery(c, "format", "", tabular.Names()...); name != "" {
		f, _ := tabular.ByName(name)
		return f, nil
	}
	f, ok := tabular.Accepted(c.Accepts)
	if !ok {
		return f, web.NotAcceptable(tabular.MediaTypes())
	}
	return f, nil
}

// fileName names a download of f's predictions: of one model, or of the
// organization's every model. Only characters safe in the header are kept.
func fileName(f tabular.Format, modelID string) string {
	name := "predictions"
	if modelID != "" {
		name += "-" + strings.Map(func(r rune) rune {
			if r < 0x80 && (r == '-' || r == '_' || r == '.' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
				return r
			}
			return '_'
		}, modelID)
	}
	return name + f.Extension
}

// setFormat sets the answer's Content-Type and, for a download, its
// Content-Disposition with the file's name.
func setFormat(c *fiber.Ctx, f tabular.Format, download bool, modelID string) {
	c.Set(fiber.HeaderContentType, f.ContentType)
	if download {
		c.Set(fiber.HeaderContentDisposition, fmt.Sprintf(`attachment; filename="%s"`, fileName(f, modelID)))
	}
}

// writeAll writes every prediction of seq with w, then closes it: the
// whole output, or the first error.
func writeAll(w tabular.Writer, seq iter.Seq2[eventlog.Prediction, error]) (int, error) {
	if err := w.Begin(); err != nil {
		return 0, err
	}
	n := 0
	for p, err := range seq {
		if err != nil {
			return n, err
		}
		if err := w.Write(p); err != nil {
			return n, err
		}
		n++
	}
	return n, w.Close()
}

// answer writes the predictions of seq, at most a page of them, as one
// whole body in format: an error at any point still answers in the
// envelope. Formats other than JSON are downloads.
func answer(c *fiber.Ctx, format tabular.Format, modelID string, seq iter.Seq2[eventlog.Prediction, error]) error {
	var b bytes.Buffer
	if _, err := writeAll(format.New(&b, tabular.Options{}), seq); err != nil {
		return err
	}
	setFormat(c, format, format.Name != tabular.JSON.Name, modelID)
	return c.Send(b.Bytes())
}
