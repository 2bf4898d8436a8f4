package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/vigilhq/vigil/platform/formula"
)

// Formats a report renders to (FormatExcel and FormatPDF are declared
// beside their renderers).
const (
	FormatJSON     = "json"
	FormatCSV      = "csv"
	FormatMarkdown = "markdown"
	FormatHTML     = "html"
)

// Formats lists the formats Render writes.
var Formats = []string{FormatJSON, FormatCSV, FormatMarkdown, FormatHTML, FormatExcel, FormatPDF}

// ContentTypes are the media types of the formats.
var ContentTypes = map[string]string{
	FormatJSON:     "application/json",
	FormatCSV:      "text/csv; charset=utf-8",
	FormatMarkdown: "text/markdown; charset=utf-8",
	FormatHTML:     "text/html; charset=utf-8",
	FormatExcel:    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
	FormatPDF:      "application/pdf",
}

// Render writes r to w in format.
func Render(w io.Writer, r Report, format string) error {
	var err error
	switch format {
	case FormatJSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		err = enc.Encode(jsonReport{Report: r, Branding: r.Brand.Meta()})
	case FormatCSV:
		err = writeCSV(w, r)
	case FormatMarkdown:
		err = writeMarkdown(w, r)
	case FormatHTML:
		err = writeHTML(w, r)
	case FormatExcel:
		err = writeExcel(w, r)
	case FormatPDF:
		err = writePDF(w, r)
	default:
		return fmt.Errorf("report format %q: want one of %s", format, strings.Join(Formats, ", "))
	}
	if err != nil {
		return fmt.Errorf("render %s report: %w", format, err)
	}
	return nil
}

// CSVColumns are the columns of the CSV rendering: one record per value,
// so that every section (figures, lines, a chart's points, a table's
// cells) fits one RFC 4180 table of fixed width. row numbers the records
// of a section from 1 (0 is the report's header); column names the
// figure, the chart series or the table column.
var CSVColumns = []string{"section", "row", "column", "label", "value"}

// writeCSV writes r as RFC 4180 CSV under CSVColumns: CRLF line ends,
// fields quoted when they hold a comma, a quote or a line end, and every
// cell that a spreadsheet would evaluate defused (formula.Defuse,
// RELIABILITY.md F20). A cell that is a plain decimal number, such as
// -0.25, is left as it is: a spreadsheet reads it as a number and no
// formula can hide in digits, a sign, a point and an exponent; prefixing
// it would turn every negative figure into text.
func writeCSV(w io.Writer, r Report) error {
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	rec := func(cells ...string) error {
		for i, c := range cells {
			cells[i] = formula.Defuse(c)
		}
		return cw.Write(cells)
	}
	if err := cw.Write(CSVColumns); err != nil {
		return err
	}
	head := [][2]string{{"title", r.Title}, {"report_category", r.Category}, {"generated_at", r.GeneratedAt.Format("2006-01-02T15:04:05Z07:00")},
		{"date_from", r.From}, {"date_to", r.To}}
	for _, m := range r.Models {
		head = append(head, [2]string{"model", m.Name + " (" + m.ID + ")"})
	}
	brand := r.Brand.Meta()
	head = append(head, [2]string{"primary_color", brand.PrimaryColor})
	if l := brand.Logo; l != nil {
		head = append(head, [2]string{"logo", l.MediaType + " sha256:" + l.SHA256})
	}
	for _, h := range head {
		if err := rec("report", "0", h[0], "", h[1]); err != nil {
			return err
		}
	}
	for _, s := range r.Sections {
		if err := csvSection(rec, s); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func csvSection(rec func(...string) error, s Section) error {
	if s.Empty {
		return rec(s.ID, "0", "empty", "", s.Note)
	}
	if s.Note != "" {
		if err := rec(s.ID, "0", "note", "", s.Note); err != nil {
			return err
		}
	}
	for i, f := range s.Figures {
		if err := rec(s.ID, strconv.Itoa(i+1), f.Label, "", f.Value); err != nil {
			return err
		}
	}
	for i, l := range s.Lines {
		if err := rec(s.ID, strconv.Itoa(i+1), "line", "", l); err != nil {
			return err
		}
	}
	if c := s.Chart; c != nil {
		for i, l := range c.Labels {
			for _, se := range c.Series {
				if err := rec(s.ID, strconv.Itoa(i+1), se.Name, l, fnum(se.Values[i])); err != nil {
					return err
				}
			}
		}
	}
	if t := s.Table; t != nil {
		for i, row := range t.Rows {
			for j, cell := range row {
				if err := rec(s.ID, strconv.Itoa(i+1), t.Columns[j], "", cell); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
