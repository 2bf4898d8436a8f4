package report

import (
	"bytes"
	"fmt"
	"image/png"
	"io"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"

	"github.com/vigilhq/vigil/platform/formula"
	"github.com/vigilhq/vigil/report/chart"
)

// FormatExcel is the Office Open XML workbook.
const FormatExcel = "excel"

// SummarySheet is the workbook's first sheet: the report's header, the
// figures and lines of its sections, and the empty sections with why.
const SummarySheet = "Summary"

// writeExcel writes r as a workbook: the Summary sheet, then a sheet per
// chart (its values, with the workbook's own chart of them beside) and a
// sheet per table. Text cells are defused (formula.Defuse); numbers are
// numbers.
func writeExcel(w io.Writer, r Report) error {
	f := excelize.NewFile()
	defer f.Close()
	if err := f.SetSheetName("Sheet1", SummarySheet); err != nil {
		return err
	}
	x := xlsx{f: f}
	x.row(SummarySheet, r.Title)
	x.row(SummarySheet, "report_category", r.Category)
	x.row(SummarySheet, "period", r.From+" to "+r.To)
	x.row(SummarySheet, "generated_at", r.GeneratedAt.Format("2006-01-02T15:04:05Z07:00"))
	for _, m := range r.Models {
		x.row(SummarySheet, "model", m.Name, m.ID)
	}
	for _, s := range r.Sections {
		switch {
		case s.Empty:
			x.row(SummarySheet)
			x.row(SummarySheet, s.Title, "empty: "+s.Note)
		case s.Chart != nil:
			x.chartSheet(s)
		case s.Table != nil:
			x.tableSheet(s)
		default:
			x.row(SummarySheet)
			x.row(SummarySheet, s.Title)
			if s.Note != "" {
				x.row(SummarySheet, s.Note)
			}
			for _, fig := range s.Figures {
				x.row(SummarySheet, fig.Label, fig.Value)
			}
			for _, l := range s.Lines {
				x.row(SummarySheet, l)
			}
		}
	}
	x.brand(r)
	if x.err != nil {
		return x.err
	}
	return f.Write(w)
}

// brand applies the brand to the workbook: the title in the brand's
// colour, every sheet's printed header naming the report in that colour,
// and the logo on the Summary sheet beside the header rows.
func (x *xlsx) brand(r Report) {
	if x.err != nil {
		return
	}
	c := brandColour(r.Brand)
	style, err := x.f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true, Size: 16, Color: c[1:]},
		Border: []excelize.Border{{Type: "bottom", Color: c[1:], Style: 5}}})
	if err == nil {
		err = x.f.SetCellStyle(SummarySheet, "A1", "A1", style)
	}
	title := strings.ReplaceAll(r.Title, "&", "&&")
	for _, sheet := range x.f.GetSheetList() {
		if err == nil {
			err = x.f.SetHeaderFooter(sheet, &excelize.HeaderFooterOptions{OddHeader: "&L&K" + strings.ToUpper(c[1:]) + "&B" + title})
		}
	}
	if err == nil && r.Brand.hasLogo() {
		ext, scale := ".svg", 1.0
		if r.Brand.LogoType == LogoPNG {
			ext = ".png"
			if cfg, cerr := png.DecodeConfig(bytes.NewReader(r.Brand.Logo)); cerr == nil && cfg.Width > 0 && cfg.Height > 0 {
				scale = min(1, 160/float64(cfg.Width), 48/float64(cfg.Height))
			}
		}
		err = x.f.AddPictureFromBytes(SummarySheet, "D1", &excelize.Picture{Extension: ext, File: r.Brand.Logo,
			Format: &excelize.GraphicOptions{AltText: "logo", ScaleX: scale, ScaleY: scale}})
	}
	if err != nil {
		x.err = fmt.Errorf("brand the workbook: %w", err)
	}
}

// xlsx appends rows to the workbook's sheets, keeping the first error.
type xlsx struct {
	f    *excelize.File
	next map[string]int
	err  error
}

// row appends cells as the next row of sheet.
func (x *xlsx) row(sheet string, cells ...string) {
	if x.next == nil {
		x.next = map[string]int{}
	}
	x.next[sheet]++
	if x.err != nil || len(cells) == 0 {
		return
	}
	vals := make([]any, len(cells))
	for i, c := range cells {
		if v, err := strconv.ParseFloat(c, 64); err == nil && formula.Defuse(c) == c && c != "" {
			vals[i] = v
		} else {
			vals[i] = formula.Defuse(c)
		}
	}
	cell, _ := excelize.CoordinatesToCellName(1, x.next[sheet])
	if err := x.f.SetSheetRow(sheet, cell, &vals); err != nil {
		x.err = fmt.Errorf("write sheet %s: %w", sheet, err)
	}
}

// sheet adds a sheet named after the section, within Excel's 31
// characters and without the characters it forbids.
func (x *xlsx) sheet(s Section) string {
	name := strings.Map(func(r rune) rune {
		if strings.ContainsRune(`[]:*?/\'`, r) {
			return ' '
		}
		return r
	}, s.Title)
	if len([]rune(name)) > 31 {
		name = string([]rune(name)[:31])
	}
	if _, err := x.f.NewSheet(name); err != nil && x.err == nil {
		x.err = fmt.Errorf("add sheet %s: %w", name, err)
	}
	return name
}

func (x *xlsx) tableSheet(s Section) {
	name := x.sheet(s)
	x.row(name, s.Table.Columns...)
	for _, r := range s.Table.Rows {
		x.row(name, r...)
	}
	if s.Note != "" {
		x.row(name)
		x.row(name, s.Note)
	}
}

// chartSheet writes the chart's values, labels in column A and a series a
// column, and the workbook's native chart of them beside.
func (x *xlsx) chartSheet(s Section) {
	c := s.Chart
	name := x.sheet(s)
	x.row(name, append([]string{"label"}, seriesNames(c.Series)...)...)
	for i, l := range c.Labels {
		row := []string{l}
		for _, se := range c.Series {
			row = append(row, fnum(se.Values[i]))
		}
		x.row(name, row...)
	}
	kind := excelize.Col
	if c.Kind == chart.Line {
		kind = excelize.Line
	}
	ch := &excelize.Chart{Type: kind, Title: []excelize.RichTextRun{{Text: c.Title}}, ShowBlanksAs: "gap",
		Format: excelize.GraphicOptions{ScaleX: 1.5, ScaleY: 1.2}}
	last := len(c.Labels) + 1
	q := "'" + name + "'!"
	for i := range c.Series {
		col, _ := excelize.ColumnNumberToName(i + 2)
		ch.Series = append(ch.Series, excelize.ChartSeries{Name: q + "$" + col + "$1",
			Categories: fmt.Sprintf("%s$A$2:$A$%d", q, last), Values: fmt.Sprintf("%s$%s$2:$%s$%d", q, col, col, last)})
	}
	col, _ := excelize.ColumnNumberToName(len(c.Series) + 3)
	if err := x.f.AddChart(name, col+"2", ch); err != nil && x.err == nil {
		x.err = fmt.Errorf("add chart to %s: %w", name, err)
	}
}
