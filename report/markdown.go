package report

import (
	"fmt"
	"io"
	"strings"
)

// writeMarkdown writes r as CommonMark with GitHub's tables: a heading a
// section, figures as a list, a chart as the table of its values.
func writeMarkdown(w io.Writer, r Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", mdText(r.Title))
	fmt.Fprintf(&b, "- Category: %s\n- Period: %s to %s\n- Generated: %s\n", mdText(r.Category), r.From, r.To, r.GeneratedAt.Format("2006-01-02T15:04:05Z07:00"))
	for _, m := range r.Models {
		fmt.Fprintf(&b, "- Model: %s (`%s`)\n", mdText(m.Name), strings.ReplaceAll(m.ID, "`", ""))
	}
	brand := r.Brand.Meta()
	fmt.Fprintf(&b, "- Brand colour: %s\n", brand.PrimaryColor)
	if l := brand.Logo; l != nil {
		fmt.Fprintf(&b, "- Logo: %s, %d bytes, SHA-256 %s\n", l.MediaType, l.SizeBytes, l.SHA256)
	}
	for _, s := range r.Sections {
		fmt.Fprintf(&b, "\n## %s\n\n", mdText(s.Title))
		if s.Empty {
			fmt.Fprintf(&b, "_Empty: %s_\n", mdText(s.Note))
			continue
		}
		if s.Note != "" {
			fmt.Fprintf(&b, "_%s_\n\n", mdText(s.Note))
		}
		for _, f := range s.Figures {
			fmt.Fprintf(&b, "- **%s**: %s\n", mdText(f.Label), mdText(f.Value))
		}
		for _, l := range s.Lines {
			fmt.Fprintf(&b, "- %s\n", mdText(l))
		}
		if c := s.Chart; c != nil {
			t := Table{Columns: append([]string{"label"}, seriesNames(c.Series)...)}
			for i, l := range c.Labels {
				row := []string{l}
				for _, se := range c.Series {
					row = append(row, fnum(se.Values[i]))
				}
				t.Rows = append(t.Rows, row)
			}
			mdTable(&b, t)
		}
		if s.Table != nil {
			mdTable(&b, *s.Table)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func mdTable(b *strings.Builder, t Table) {
	row := func(cells []string) {
		b.WriteString("|")
		for _, c := range cells {
			b.WriteString(" " + strings.ReplaceAll(mdText(c), "|", `\|`) + " |")
		}
		b.WriteString("\n")
	}
	row(t.Columns)
	b.WriteString("|" + strings.Repeat(" --- |", len(t.Columns)) + "\n")
	for _, r := range t.Rows {
		row(r)
	}
}

// mdText escapes the characters Markdown would read as markup or HTML,
// and folds line breaks.
func mdText(s string) string {
	r := strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`, "<", "&lt;", ">", "&gt;",
		"#", `\#`, "\r\n", " ", "\n", " ", "\r", " ")
	return r.Replace(s)
}
