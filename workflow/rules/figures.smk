# The three generic rules every figure goes through, named by pipeline stage so that the report's
# workflow graph reads data -> estimate -> design -> experiment -> figure:
#   experiment (expensive: the numbers)  results/<paper>/<fig>.csv
#   figure     (cheap: the drawing)      results/<paper>/<fig>.pdf, .png
#   claims     (the paper's statements)  results/<paper>/claims.csv
# Computation and drawing are separate jobs, so a style change redraws without recomputing.


wildcard_constraints:
    paper="|".join(PAPERS + STUDIES),
    figure=r"fig[0-9]+[a-z]?",


rule experiment:
    input:
        unpack(figure_inputs),
    output:
        table="results/{paper}/{figure}.csv",
    params:
        settings=lambda wildcards: figure_settings(wildcards.paper, wildcards.figure),
        seed=config["seed"],
    threads: figure_resource("threads", 1)
    resources:
        mem_mb=figure_resource("mem_mb", 2000),
        runtime=figure_resource("runtime", 30),
    log:
        "logs/{paper}/{figure}_experiment.log",
    benchmark:
        "benchmarks/{paper}/{figure}_experiment.tsv"
    conda:
        ENV
    script:
        "../scripts/table.py"


rule figure:
    input:
        table="results/{paper}/{figure}.csv",
        code=plot_code,
    output:
        pdf="results/{paper}/{figure}.pdf",
        png=report(
            "results/{paper}/{figure}.png",
            caption="../report/figure.rst",
            category="{paper}",
            subcategory="figures",
            labels={"figure": "{figure}"},
        ),
    params:
        settings=lambda wildcards: figure_settings(wildcards.paper, wildcards.figure),
        # the caption's text (workflow/report/figures.yaml); not used by the drawing
        description=lambda wildcards: figure_description(wildcards.paper, wildcards.figure),
        # the module that draws it (leakage.plots.<module>): a <name>-design study draws as adult-design
        kind=lambda wildcards: study_kind(wildcards.paper),
    resources:
        mem_mb=1000,
        runtime=10,
    log:
        "logs/{paper}/{figure}_figure.log",
    benchmark:
        "benchmarks/{paper}/{figure}_figure.tsv"
    conda:
        ENV
    script:
        "../scripts/plot.py"


rule claims:
    input:
        unpack(claims_inputs),
    output:
        claims="results/{paper}/claims.csv",
    params:
        settings=lambda wildcards: config[wildcards.paper],
        figures=lambda wildcards: FIGURES[wildcards.paper],
        seed=config["seed"],
    resources:
        mem_mb=1000,
        runtime=10,
    log:
        "logs/{paper}/claims.log",
    benchmark:
        "benchmarks/{paper}/claims.tsv"
    conda:
        ENV
    script:
        "../scripts/claims.py"
