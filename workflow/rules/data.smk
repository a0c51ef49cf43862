# UCI Adult: acquire, verify, write results/data/adult.csv (specs/adult.md).
