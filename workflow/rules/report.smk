# Report items besides the figures (snakemake --report report.html): each paper's claims as an
# HTML table with the claims that do not hold highlighted, and the provenance of the Adult data.
# Both take a second: on a cluster they run on the submitting node, not as SLURM jobs.


localrules:
    claims_html,
    adult_provenance_html,


rule claims_html:
    input:
        claims="results/{paper}/claims.csv",
        code=script_code("claims_html.py"),
    output:
        html=report(
            "results/{paper}/claims.html",
            caption="../report/claims.rst",
            category="{paper}",
            subcategory="claims",
            labels={"table": "claims of {paper}"},
        ),
    resources:
        mem_mb=500,
        runtime=5,
    log:
        "logs/{paper}/claims_html.log",
    conda:
        ENV
    script:
        "../scripts/claims_html.py"


rule adult_provenance_html:
    input:
        provenance="results/data/adult_provenance.json",
        code=script_code("provenance_html.py"),
    output:
        html=report(
            "results/data/adult_provenance.html",
            caption="../report/provenance.rst",
            category="data",
            subcategory="provenance",
            labels={"data set": "UCI Adult", "item": "provenance"},
        ),
    resources:
        mem_mb=500,
        runtime=5,
    log:
        "logs/data/adult_provenance_html.log",
    conda:
        ENV
    script:
        "../scripts/provenance_html.py"
