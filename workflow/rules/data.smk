# UCI Adult: acquire, verify, write results/data/adult.csv (docs/data.md), and the empirical
# distribution of its binary features (empirical-pml, Sec. VI-C1). The work is in leakage.data.adult.


rule data:
    input:
        code=script_code("adult.py"),
    output:
        table="results/data/adult.csv",
        provenance="results/data/adult_provenance.json",
    params:
        settings=config["adult"],
    resources:
        mem_mb=1000,
        runtime=20,
    log:
        "logs/data/adult.log",
    benchmark:
        "benchmarks/data/adult.tsv"
    conda:
        ENV
    script:
        "../scripts/adult.py"


rule estimate_features:
    input:
        table="results/data/adult.csv",
        code=script_code("adult_estimates.py"),
    output:
        estimates="results/empirical-pml/adult_estimates.csv",
    resources:
        mem_mb=1000,
        runtime=5,
    log:
        "logs/empirical-pml/adult_estimates.log",
    benchmark:
        "benchmarks/empirical-pml/adult_estimates.tsv"
    conda:
        ENV
    script:
        "../scripts/adult_estimates.py"
